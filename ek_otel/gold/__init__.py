"""gold stage."""
