"""Tabletop services: the imperative shell around the pure game engines."""
