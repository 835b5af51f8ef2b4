#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every option a command's --help names is in its bash and zsh completion
# and in userevents(1)'s SYNOPSIS (issue 24, item 3).  Needs no root.
#
#   completions.py USEREVENTS SRCDIR
import re, subprocess, sys

tool, src = sys.argv[1], sys.argv[2]
bash = open(src + "/dist/userevents.bash").read()
zsh = open(src + "/dist/_userevents.zsh").read()
man = open(src + "/docs/man/userevents.1").read()
synopsis = man[man.index(".SH SYNOPSIS"):man.index(".SH DESCRIPTION")].replace("\\-", "-")
fails = 0


def branch(text, cmd):
    m = re.search(r"^\t(?:[a-z]+\|)*%s(?:\|[a-z]+)*\)(.*?)(?:;;)" % cmd, text, re.S | re.M)
    return m.group(1) if m else ""


def zsh_branch(cmd):
    b = branch(zsh, cmd)
    for var in ("ev", "pv", "bu"):
        if "$" + var in b:
            m = re.search(r"local -a %s=\((.*?)\)$" % var, zsh, re.S | re.M)
            b += m.group(1) if m else ""
    return b


for cmd in ("list", "stats", "stream", "run", "record", "report", "export", "top"):
    out = subprocess.run([tool, cmd, "--help"], capture_output=True, text=True).stdout
    opts = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", out)) - {"--"}
    syn = synopsis[synopsis.index("userevents " + cmd):]
    syn = syn[:syn.find(".br")]
    for o in sorted(opts):
        for where, text in (("bash", branch(bash, cmd)), ("zsh", zsh_branch(cmd)),
                            ("SYNOPSIS", syn)):
            # export's SYNOPSIS names its batch and queue options as a group (EXPORT lists them).
            if where == "SYNOPSIS" and "BATCH AND QUEUE OPTIONS" in text:
                exp = man[man.index(".SH EXPORT"):]
                text += exp[:exp.index(".SH", 3)].replace("\\-", "-")
            if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text):
                print("FAIL: %s %s: not in the %s" % (cmd, o, where))
                fails += 1
print("%d missing" % fails if fails else "ok: every --help option in bash, zsh and SYNOPSIS")
sys.exit(1 if fails else 0)
