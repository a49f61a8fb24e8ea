#!/usr/bin/env python3
"""shootdown.py: one host command over saved console logs and JSONL files.

    tools/shootdown.py check LOG [checklog options]
    tools/shootdown.py table FILE...
    tools/shootdown.py compare A B | A... -- B... | --a A --b B
    tools/shootdown.py answer RUN... [--markdown | --json] [--plot PNG]
    tools/shootdown.py plot FILE [-o DIR]
    tools/shootdown.py tap LOG | junit LOG
    tools/shootdown.py lava LOG [-o CONSOLE] [--gate] | lava-job KIND VAR=VALUE...

docs/results.md says what each prints and its exit statuses (tap and junit:
docs/results-ci.md; lava and lava-job: docs/lab.md). The code is in
tools/results/; tools/checklog.py stays where it is (check runs it as is).
"""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "results"))
sys.path.insert(0, HERE)

from cli import main  # noqa: E402  (needs the path above)

if __name__ == "__main__":
    sys.exit(main(allow_reexec=True))
