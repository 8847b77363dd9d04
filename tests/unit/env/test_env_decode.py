"""The ast decoder: what BFCL's prompting mode accepts, and what we refuse."""

from __future__ import annotations

import pytest

from rcgrpo.env.decode import DecodeLimits, decode_reply

ALLOWED = {"cd", "mv", "ls", "mean", "echo", "post_tweet"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # BFCL's canonical form
        (
            "[cd(folder='a'), mv(source='x', destination='y')]",
            [("cd", {"folder": "a"}), ("mv", {"source": "x", "destination": "y"})],
        ),
        # brackets added as BFCL does (strip "`\n ", prepend "[" / append "]")
        ("cd(folder='a')", [("cd", {"folder": "a"})]),
        ("cd(folder='a'), ls(a=True)", [("cd", {"folder": "a"}), ("ls", {"a": True})]),
        ("```\n[ls()]\n```", [("ls", {})]),
        ("[cd(folder='a')", [("cd", {"folder": "a"})]),  # BFCL appends the missing "]"
        # a language tag on the fence (BFCL's decoder fails on this; we accept it)
        ("```python\n[ls(a=False)]\n```", [("ls", {"a": False})]),
        ("  \n[mean(numbers=[1, -2.5, +3])]\n ", [("mean", {"numbers": [1, -2.5, 3]})]),
        (
            "[post_tweet(content='hi', tags=('#a',), mentions={'k': [None, 1e3]})]",
            [("post_tweet", {"content": "hi", "tags": ("#a",), "mentions": {"k": [None, 1000.0]}})],
        ),
        # identifiers inside a string are data
        (
            "[echo(content=\"__import__('os').system('rm -rf /')\")]",
            [("echo", {"content": "__import__('os').system('rm -rf /')"})],
        ),
    ],
)
def test_accepted_replies(text, expected):
    decoded = decode_reply(text, ALLOWED)
    assert decoded.kind == "calls" and decoded.error is None
    assert [(c.name, c.kwargs) for c in decoded.calls] == expected


def test_source_is_the_call_text_and_redecodes_to_the_same_call():
    decoded = decode_reply("[cd(folder='a'),   mv(source='x',destination=\"y\")]", ALLOWED)
    assert [c.source for c in decoded.calls] == [
        "cd(folder='a')",
        "mv(source='x',destination=\"y\")",
    ]
    again = decode_reply(decoded.calls[1].source, ALLOWED).calls[0]
    assert (again.name, again.kwargs) == ("mv", {"source": "x", "destination": "y"})


@pytest.mark.parametrize(
    "text",
    ["", "   ", "[]", "```\n```", "I have moved the file.", "Sure! [ls()]", "42", "'[ls()]'"],
)
def test_no_calls_ends_the_turn(text):
    assert decode_reply(text, ALLOWED).kind == "no_calls"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[os.system(command='ls')]", "bare function names"),
        ("[__import__(name='os')]", "dunder"),
        ("[_private()]", "private"),
        ("[ls()()]", "bare function names"),
        ("[open(file='x', mode='w')]", "not available"),
        ("[rm(file_name='x')]", "not available"),
        ("[cd('a')]", "positional"),
        ("[cd(**{'folder': 'a'})]", "**kwargs"),
        ("[cd(folder=x)]", "only literal values"),
        ("[cd(folder='a' + 'b')]", "only literal values"),
        ("[mean(numbers=[1, 2**10])]", "only literal values"),
        ("[cd(folder=ls())]", "only literal values"),
        ("[cd(folder=(lambda: 1)())]", "only literal values"),
        ("[cd(folder=f'{1}')]", "only literal values"),
        ("[mean(numbers={1, 2})]", "only literal values"),
        ("[cd(folder=b'a')]", "bytes literals"),
        ("[cd(folder=...)]", "ellipsis literals"),
        ("[cd(folder=1j)]", "complex literals"),
        ("[mean(numbers=-'a')]", "unary operators"),
        ("[mean(numbers={**{}})]", "unpacking"),
        ("[mean(numbers={[1]: 2})]", "scalars"),
        ("[ls(), 3]", "not a function call"),
        ("[ls(a=True)] + [ls()]", "must be a Python list of function calls"),
        ("[cd(folder='a'", "could not parse"),
        ("cd(folder='a'); import os", "could not parse"),
        ("import os", "must be a Python list of function calls"),
        ("x = ls()", "must be a Python list of function calls"),
        ("os.system('touch x')", "bare function names"),
        ("ｌｓ()", "must be a Python list of function calls"),  # NFKC name, not ASCII-shaped
        ("[cd(folder='a', folder='b')]", "given twice"),
        ("[cd(folder=" + "9" * 5000 + ")]", "could not parse"),  # > 4300 digits
        ("[cd(folder='\x00')]", "could not parse"),  # a raw NUL character
    ],
)
def test_rejected_replies_name_the_reason(text, reason):
    decoded = decode_reply(text, ALLOWED)
    assert decoded.kind == "rejected" and decoded.calls == ()
    assert reason in decoded.error


def test_one_bad_call_rejects_the_whole_reply():
    decoded = decode_reply("[cd(folder='a'), os.remove(path='x'), ls()]", ALLOWED)
    assert decoded.kind == "rejected" and decoded.calls == ()
    assert decoded.error.startswith("call 2:")


def test_limits():
    limits = DecodeLimits(max_chars=50, max_calls=3, max_depth=2)
    assert "limit 50" in decode_reply("[echo(content='" + "x" * 60 + "')]", ALLOWED, limits).error
    assert "limit 50" in decode_reply("word " * 20, ALLOWED, limits).error  # even prose
    assert "limit 3" in decode_reply("[ls(), ls(), ls(), ls()]", ALLOWED, limits).error
    assert decode_reply("[mean(numbers=[[1]])]", ALLOWED, limits).kind == "calls"  # 2 deep
    assert "too deeply" in decode_reply("[mean(numbers=[[[1]]])]", ALLOWED, limits).error


def test_deep_nesting_and_long_chains_never_raise():
    for text in [
        "[ls(a=" + "[" * 5000 + "]" * 5000 + ")]",
        "[" + "a." * 10000 + "b()]",
        "[ls(a=" + "-" * 10000 + "1)]",
        "[ls(a=" + "(" * 300 + "1" + ")" * 300 + ")]",
    ]:
        assert decode_reply(text, ALLOWED).kind == "rejected"


def test_text_must_be_a_str():
    with pytest.raises(ValueError, match="text must be a str"):
        decode_reply(b"[ls()]", ALLOWED)


def test_model_text_provoking_syntax_warnings_is_parsed_quietly():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a SyntaxWarning would raise here
        for text in ("[f(a=1st)]", '[f(a="\\d")]', "[f(a=1)] is 1"):
            decode_reply(text, {"f"})
