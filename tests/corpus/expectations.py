"""What each corpus program that does not pass lacks, as the run reported it (strict xfails in
test_corpus.py: a fix that makes a program pass fails its test until the entry is removed here).

DOES_NOT_RUN: the program stops with an error; the reason names the unsupported name or module.
NO_GRAPH: the program runs but Dagscope drew no graph for it.
WRONG_NUMBERS: it runs, but prints numbers that differ from the real library's beyond float32 rounding.
"""

DOES_NOT_RUN: dict[str, str] = {
}

NO_GRAPH: dict[str, str] = {
}

WRONG_NUMBERS: dict[str, str] = {
}
