"""Only what pyproject.toml cannot say: ship the top-level ``resources/`` folder inside the wheel as
``jarvis_desktop/resources`` (where ``config.resources_dir()`` looks outside a checkout)."""

from setuptools import find_namespace_packages, setup

_RESOURCES = ["jarvis_desktop.resources"] + [
    f"jarvis_desktop.resources.{p}" for p in find_namespace_packages(where="resources", exclude=["*__pycache__*"])
]

setup(
    packages=find_namespace_packages(include=["jarvis_desktop*"], exclude=["*__pycache__*"]) + _RESOURCES,
    package_dir={"jarvis_desktop.resources": "resources"},
    package_data={p: ["*"] for p in _RESOURCES},
)
