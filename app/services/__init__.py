"""Services: the only modules that call the engine and external programs."""
