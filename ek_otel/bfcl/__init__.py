"""bfcl stage."""
