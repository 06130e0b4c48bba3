"""kgspec.model.assignors."""
