"""JARVIS Desktop: a HuggingGPT-style desktop assistant."""
__version__ = "0.1.0"
