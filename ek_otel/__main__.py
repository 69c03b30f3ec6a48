from ek_otel.cli import main

main()
