"""The four HuggingGPT stages (plan, select, execute, respond) and the events they emit."""
