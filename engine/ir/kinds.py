"""The kinds of IR node (graph.py's Node.kind), below both graph.py and the printer that writes them."""

PLACEHOLDER, CONSTANT, CALL, COND, WHILE, OUTPUT = "placeholder", "constant", "call", "cond", "while_loop", "output"
NODE_KINDS = (PLACEHOLDER, CONSTANT, CALL, COND, WHILE, OUTPUT)
