"""The core: shapes and metrics. Imports nothing from OTel and nothing from the other stages."""
