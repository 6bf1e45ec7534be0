"""The package's version: written here once; pyproject.toml, the package and the host's replies read it."""

__version__ = "0.1.0"
