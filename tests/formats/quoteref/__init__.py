"""The mail splitter as it was before its fast paths (indexer 12aeef7's `quotes`,
`quotecuts`, `quotelines`, `signatures`), kept unchanged as the reference that
`test_quote_fast.py` compares `indexer.formats.eml.quotes.passages` with, output for
output. Not to be edited: it is the definition the fast code must equal."""
