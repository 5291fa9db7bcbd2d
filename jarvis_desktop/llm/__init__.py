"""Controllers: language models that plan, choose models and write answers."""
