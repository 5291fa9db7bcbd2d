"""Expert models that run plan tasks: the runner interface, the registry, the catalog, the cache."""
