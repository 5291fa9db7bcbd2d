"""The PySide6 desktop window. The only package allowed to import Qt."""
