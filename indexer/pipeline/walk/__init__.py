"""The walker: every path below SOURCE once, in a fixed order, with a verdict (mbox split here)."""
