"""TLS on both receivers (--tls-cert/--tls-key), with a self-signed certificate for 127.0.0.1."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import urllib.request

import grpc
import pytest

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"


@pytest.fixture()
def cert(tmp_path):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                       critical=False)
        .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return str(cert_path), str(key_path)


def test_https_and_grpc_over_tls(start_server, cert):
    cert_path, key_path = cert
    server = start_server(tls_cert=cert_path, tls_key=key_path)
    ctx = ssl.create_default_context(cafile=cert_path)
    url = f"https://127.0.0.1:{server.app.http_port}/v1/traces"
    req = urllib.request.Request(url, data=b"", headers={"Content-Type": "application/x-protobuf"})
    with urllib.request.urlopen(req, context=ctx, timeout=10) as resp:
        assert resp.status == 200
    with open(cert_path, "rb") as f:
        creds = grpc.ssl_channel_credentials(root_certificates=f.read())
    with grpc.secure_channel(f"127.0.0.1:{server.app.grpc_port}", creds) as channel:
        export = channel.unary_unary(METHOD, request_serializer=None, response_deserializer=None)
        assert export(b"", timeout=10) == b""
    with pytest.raises(OSError):   # plain HTTP to the TLS port does not get through
        urllib.request.urlopen(urllib.request.Request(
            url.replace("https", "http"), data=b"",
            headers={"Content-Type": "application/x-protobuf"}), timeout=10)
