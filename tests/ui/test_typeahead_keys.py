"""What typed-ahead keys make of the next message: Enter queues, Esc clears, editing keys
edit, escape sequences vanish whole."""

from __future__ import annotations

import time

from agent.ui.typeahead import KeyReader


def test_enter_queues_the_line_and_starts_a_new_one() -> None:
    keys = KeyReader()
    assert keys.feed("first\rsec") == ["first"]
    assert (keys.queued, keys.draft) == (["first"], "sec")


def test_backspace_and_ctrl_u_edit_the_line_being_typed() -> None:
    keys = KeyReader()
    keys.feed("helo\x7flo wor\x08rld")
    assert keys.draft == "hello world"
    keys.feed("\x15again")
    assert keys.draft == "again"


def test_esc_alone_clears_what_is_typed_and_queued() -> None:
    keys = KeyReader()
    keys.feed("one\rtwo")
    keys.feed("\x1b")
    keys.escape_timed_out()  # the reader's pause passed with no more of a sequence
    assert (keys.queued, keys.draft, keys.cleared) == ([], "", True)


def test_arrow_keys_and_alt_keys_type_nothing() -> None:
    keys = KeyReader()
    keys.feed("a\x1b[Ab\x1bOBc\x1bxd\x1b[1;5De")
    assert keys.draft == "abcde" and not keys.cleared


def test_an_empty_line_queues_nothing() -> None:
    keys = KeyReader()
    assert keys.feed("   \r\r") == [] and keys.queued == []


def test_string_sequences_vanish_to_their_end_in_seven_and_eight_bit_forms() -> None:
    keys = KeyReader()
    keys.feed("a\x1b]0;title\x07b\x1b]8;;url\x1b\\c\x9b2Jd\x9d0;t\x9ce\x1bPdcs\x1b\\f")
    assert keys.draft == "abcdef"


def test_an_arrow_key_split_across_two_reads_keeps_the_queue_and_types_nothing() -> None:
    keys = KeyReader()
    keys.feed("first question\r")
    keys.feed("second\r")
    keys.feed("\x1b")  # over ssh an arrow key's ESC can arrive alone...
    assert keys.escape_pending
    keys.feed("[A")  # ...and its rest in the next read, before the Esc pause ends
    assert (keys.queued, keys.draft, keys.cleared) == (["first question", "second"], "", False)
    keys.escape_timed_out()  # the pause ends with the sequence complete: nothing to clear
    assert (keys.queued, keys.draft, keys.cleared) == (["first question", "second"], "", False)


def test_a_pasted_line_break_is_text_and_only_an_enter_after_the_paste_queues_it() -> None:
    keys = KeyReader()
    # A paste split across reads, with CR LF, LF and CR breaks and an escape inside.
    assert keys.feed("\x1b[200~one\r\ntwo\nthr") == []
    assert keys.feed("ee\x1b[31m\r\x1b[201~ end") == []
    assert keys.draft == "one\ntwo\nthree\n end"
    assert keys.feed("\r") == ["one\ntwo\nthree\n end"]
    assert keys.feed("after\r") == ["after"]  # the paste is over: Enter is Enter again


def test_esc_ends_a_paste_whose_end_never_came() -> None:
    keys = KeyReader()
    keys.feed("\x1b[200~cut short\r")
    keys.feed("\x1b")
    keys.escape_timed_out()
    assert keys.feed("typed\r") == ["typed"]


def test_a_paste_the_prompt_read_after_its_enter_stays_text_and_queues_nothing() -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.input.typeahead import store_typeahead
    from prompt_toolkit.key_binding import KeyPress
    from prompt_toolkit.keys import Keys

    from agent.ui.typeahead import TypeAhead

    queued: list[str] = []
    reader = TypeAhead(queued.append, lambda draft: None, lambda: None)
    with create_pipe_input() as source:
        # `hi⏎` and a paste in one read: the prompt took `hi`, the rest waits in its store.
        pasted = KeyPress(Keys.BracketedPaste, "see this\r/export ~/.bashrc\r")
        store_typeahead(source, [KeyPress("x", "x"), pasted, KeyPress(Keys.ControlM, "\r")])
        reader.take_prompt_leftovers(source)
    assert queued == ["xsee this\n/export ~/.bashrc"]  # one message, sent by a real Enter


def test_backspace_across_reads_takes_off_what_earlier_reads_typed() -> None:
    keys = KeyReader()
    keys.feed("abc")
    keys.feed("\x7f\x7fxy\x7fz")
    assert keys.draft == "axz"
    keys.feed("\x7f" * 9 + "q\r")
    assert (keys.queued, keys.draft) == (["q"], "")


def test_a_two_megabyte_paste_is_read_in_linear_time() -> None:
    # Growing the draft key by key copied it at every key: 2 MB took about a minute, with
    # the chat's loop (the answer, Ctrl-C) frozen meanwhile.
    paste = "a pasted line of text\n" * 95_000
    data = f"\x1b[200~{paste}\x1b[201~"
    keys = KeyReader()
    started = time.process_time()  # CPU time: a busy machine stretches wall time, not this
    for at in range(0, len(data), 4096):  # as the reader gets it, one read at a time
        keys.feed(data[at : at + 4096])
    assert time.process_time() - started < 5
    assert keys.draft == paste
