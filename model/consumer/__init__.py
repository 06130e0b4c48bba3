"""kgspec.model.consumer."""
