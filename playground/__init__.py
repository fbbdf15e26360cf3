"""Context Policy Playground: replay recorded agent sessions through stacks of context policies."""
