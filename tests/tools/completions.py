#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The docs and completions say what the tool takes (issue 24, item 3), both
# ways.  Needs no root.
#  - every option a command's --help names is in its bash and zsh completion
#    and in userevents(1)'s SYNOPSIS, and the global options of
#    userevents --help in the global completions and the SYNOPSIS;
#  - every option a completion offers for a command, the summary of
#    userevents --help gives it, or the README's tool lines show it, is one
#    the command's --help names (nothing stale); and the summary gives every
#    option of a command's --help but the tuning ones (buffer, blocking,
#    reattach, preload, export's batches and queue);
#  - the man pages carry one date and the tool's version.
#
#   completions.py USEREVENTS SRCDIR
import re, subprocess, sys

tool, src = sys.argv[1], sys.argv[2]
bash = open(src + "/dist/userevents.bash").read()
zsh = open(src + "/dist/_userevents.zsh").read()
man = open(src + "/docs/man/userevents.1").read()
readme = open(src + "/README.md").read()
synopsis = man[man.index(".SH SYNOPSIS"):man.index(".SH DESCRIPTION")].replace("\\-", "-")
fails = 0
COMMANDS = ("list", "enable", "disable", "stats", "stream", "run", "record", "report", "export", "top")
OPT = r"(?<![\w-])(--?[a-z][a-z-]*)"


def fail(msg):
    global fails
    print("FAIL: " + msg)
    fails += 1


def branch(text, cmd):
    m = re.search(r"^\t(?:[a-z]+\|)*%s(?:\|[a-z]+)*\)(.*?)(?:;;)" % cmd, text, re.S | re.M)
    return m.group(1) if m else ""


def zsh_branch(cmd):
    b = branch(zsh, cmd)
    for var in ("ev", "pv", "bu", "ra"):
        if "$" + var in b:
            m = re.search(r"local -a %s=\((.*?)\)$" % var, zsh, re.S | re.M)
            b += m.group(1) if m else ""
    return b


def has(text, o):
    return re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text)


def options(text):
    return set(re.findall(OPT, text)) - {"--", "-h", "--help"}


# The long forms of the short options the usage lines show (tools/opts.c, main.c).
LONG = {"--event": "-e", "--filter": "-f", "--provider": "-p", "--output": "-o",
        "--quiet": "-q", "--buffer-size": "-b", "--names": "-n"}


def offered(text):
    """The options a completion's text offers (not compgen's own flags)."""
    text = re.sub(r"compgen -[a-zA-Z]\b|_command_names -e\b", "", text)
    return {LONG.get(o, o) for o in options(text.replace("=", " "))}


helps = {}
for cmd in COMMANDS:
    helps[cmd] = subprocess.run([tool, cmd, "--help"], capture_output=True, text=True).stdout
main_help = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout

# --help's options are in the completions and the SYNOPSIS.
for cmd in ("list", "stats", "stream", "run", "record", "report", "export", "top"):
    syn = synopsis[synopsis.index("userevents " + cmd):]
    syn = syn[:syn.find(".br")]
    for o in sorted(options(helps[cmd])):
        for where, text in (("bash", branch(bash, cmd)), ("zsh", zsh_branch(cmd)),
                            ("SYNOPSIS", syn)):
            # export's SYNOPSIS names its batch and queue options as a group (EXPORT lists them).
            if where == "SYNOPSIS" and "BATCH AND QUEUE OPTIONS" in text:
                exp = man[man.index(".SH EXPORT"):]
                text += exp[:exp.index(".SH", 3)].replace("\\-", "-")
            if not has(text, o):
                fail("%s %s: not in the %s" % (cmd, o, where))

# The global options: userevents --help's usage line, -h/--help and -V/--version.
glob_opts = options(main_help.split("\n")[0]) | {"--help", "--version"}
glob_bash = re.search(r'compgen -W "(--tracefs[^"]*)"', bash).group(1)
glob_zsh = zsh[zsh.index("_arguments -C"):]
glob_zsh = glob_zsh[:glob_zsh.index("'*::arg")]
glob_syn = synopsis[:synopsis.index(".sp")]
for o in sorted(glob_opts):
    for where, text in (("bash", glob_bash), ("zsh", glob_zsh), ("SYNOPSIS", glob_syn)):
        if where == "SYNOPSIS" and o in ("--help", "--version"):
            continue
        if not has(text, o):
            fail("global %s: not in the %s" % (o, where))

# Nothing stale: what a completion, the summary of --help or the README offers exists.
summary = main_help[main_help.index("Commands:"):]
for cmd in COMMANDS:
    takes = options(helps[cmd]) if cmd not in ("enable", "disable") else set()
    if cmd == "export":
        # Its batch and queue options are in its usage, on the lines after the first.
        takes |= options(helps[cmd])
    m = re.search(r"^  %s\b(.*?)(?=^  [a-z]+\b|^\n)" % cmd, summary, re.S | re.M)
    said = m.group(1) if m else ""
    for where, text in (("bash", branch(bash, cmd)), ("zsh", zsh_branch(cmd)),
                        ("userevents --help", said)):
        for o in sorted(offered(text)):
            if o not in takes:
                fail("%s: the %s offers %s, which %s --help does not name" % (cmd, where, o, cmd))
# Both ways: the summary of userevents --help names every option of a
# command's --help (report --format, top --group and --sort were missing)
# but those that tune how it reads and sends, which the command's --help
# and userevents(1) give.
TUNING = {"-b", "--blocking", "--no-blocking", "--reattach", "--no-preload", "--batch-records",
          "--batch-bytes", "--batch-delay", "--queue-bytes", "--drop", "--timeout",
          "--retry-timeout", "--flush-timeout"}
for cmd in COMMANDS:
    if cmd in ("enable", "disable"):
        continue
    m = re.search(r"^  %s\b(.*?)(?=^  [a-z]+\b|^\n)" % cmd, summary, re.S | re.M)
    said = offered(m.group(1) if m else "")
    for o in sorted({LONG.get(o, o) for o in options(helps[cmd])} - TUNING - said):
        fail("%s %s: not in the summary of userevents --help" % (cmd, o))
for line in re.findall(r"^    userevents ([a-z]+)(.*)$", readme, re.M):
    cmd, rest = line
    rest = rest.split("#")[0]
    for o in sorted(options(rest)):
        if cmd in helps and o not in options(helps[cmd]):
            fail("README: userevents %s %s: not an option of %s" % (cmd, o, cmd))

# One date for the man pages, and the tool's version.
version = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout.split()[-1]
ths = {}
for page in ("userevents.1", "usereventsd.8", "userevents.3", "UE_EVENT.3",
             "ue_provider_open.3", "ue_tracepoint_register.3"):
    m = re.search(r'^\.TH \S+ \d+ (\S+) "userevents ([^"]+)"', open(src + "/docs/man/" + page).read(),
                  re.M)
    if not m:
        fail("%s: no .TH line with a date and \"userevents VERSION\"" % page)
        continue
    ths[page] = m.groups()
    if m.group(2) != version:
        fail("%s: version %s, the tool's is %s" % (page, m.group(2), version))
if len({d for d, _ in ths.values()}) > 1:
    fail("the man pages' dates differ: %s" % ", ".join("%s %s" % (p, d) for p, (d, _) in ths.items()))

print("%d failed" % fails if fails else
      "ok: options, completions, SYNOPSIS, --help, README and man page dates agree")
sys.exit(1 if fails else 0)
