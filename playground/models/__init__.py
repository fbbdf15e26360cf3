"""What the playground knows of each model, in one catalogue (`catalogue`): the names that stand
for it, its context window by default and on request, its tokenizer, its provider's prompt-cache
rule and its price entry. The app's picker, the CLI, the config file and every analysis ask here.
`plausible` holds each recorded call's usage to what its model could have made.

May import: `policies`, the engine, `playground.money`, the root modules.
"""
