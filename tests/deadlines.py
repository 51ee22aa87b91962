"""How long a test waits for the programs it starts before it calls them stuck: one place.

On a shared 2-core machine with other suites beside it (load average 20 was seen), an
`agent` child spends tens of seconds just importing before it prints a line, so 30-second
waits failed tests that had nothing wrong. A deadline costs time only when a test fails
(a test that passes stops waiting as soon as what it waits for arrives), so these are
generous; they bound a hang, they never measure speed. Tests whose feature is speed bound
CPU time instead (tests/cost_meters.py).
"""

from __future__ import annotations

# A whole run of `agent ...` (or another program) without a terminal, to its exit.
PROCESS = 180.0
# One wait for output of a program in a pseudo-terminal (pexpect's expect, a prompt, an answer).
EXPECT = 120.0
# A server the test starts (the console, a fixture, the fake model) to print its address.
SERVER_START = 120.0
# One HTTP request to such a server, answered.
REQUEST = 120.0
# A program told to stop (SIGTERM, end of input) to exit and reap what it started.
STOP = 60.0
# A Playwright `expect` on a page of the console: the page's own work, done in a browser.
BROWSER = 60.0
# A wall-clock bound that only tells a guard that stopped working (which would run for minutes
# or forever: a FIFO opened, a regex backtracking 2**60 ways, a child waited for) from one that
# works; the product's own time limit is added to it where it has one.
HANG = 60.0
