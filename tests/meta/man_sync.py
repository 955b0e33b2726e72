#!/usr/bin/env python3
"""The man pages against the built tools.

    man_sync.py edit TOOL MAN          every command of TOOL (--list commands) has a section
    man_sync.py catalog TOOL MAN       (.SS COMMAND) in MAN, and the reverse; each section's
                                       options are exactly those of the command's table
                                       (TOOL --list options COMMAND), and the options its
                                       synopsis names (the lines before its first .PP) are
                                       the ones the tool's usage lines name (gguf-edit)
    man_sync.py schema TOOL MAN DB     the SCHEMA section's tables, views and columns are
                                       exactly those of the catalog DB (built by TOOL)
    man_sync.py selftest TOOL MAN      the check fails when an option is added to one side only

A command's options are the lines of TOOL --list options COMMAND ("--json", "-o, --output
OUT"); in the man page, the line after each .TP or .TQ of the section. Options
that several commands share are listed once, in a section named "<GROUP> OPTIONS" (READING
OPTIONS, EDIT OPTIONS, ...); a command's section that names such a section takes all of its
options. --help itself is left out (every command has it).

To document a new command: add a .SS section under COMMANDS with its options (.TP, then the
option), naming the groups it takes; a new shared option goes into its group's section.
"""
import re
import sqlite3
import subprocess
import sys

LIST_OPTION = re.compile(r'^(?:-[A-Za-z0-9], )?--([a-z0-9][a-z0-9-]*)')
MAN_OPTION = re.compile(r'\\-\\-((?:[a-z0-9]|\\-)+)')
USAGE_OPTION = re.compile(r'(?<![a-z0-9-])--([a-z0-9][a-z0-9-]*)')


def table_options(text):
    """The long options a --list options list defines."""
    found = set()
    for line in text.splitlines():
        m = LIST_OPTION.match(line)
        if m:
            found.add(m.group(1))
    return found - {'help'}


def usage_options(text):
    """The long options the usage lines of a --help text name."""
    found = set()
    for line in text.splitlines():
        if not line.startswith(('usage:', '       ')):
            break
        found |= set(USAGE_OPTION.findall(line))
    return found


def synopsis_options(lines):
    """The long options a man section's synopsis names (its lines before the first .PP)."""
    found = set()
    for line in lines:
        if line.startswith('.PP'):
            break
        found |= {m.replace('\\-', '-') for m in MAN_OPTION.findall(line)}
    return found


def parse_man(text):
    """{(section, subsection): [lines]} with the roff quotes taken off the titles."""
    blocks = {}
    sh, ss = None, None
    for line in text.splitlines():
        if line.startswith('.SH '):
            sh, ss = line[4:].strip().strip('"'), None
        elif line.startswith('.SS '):
            ss = line[4:].strip().strip('"')
        blocks.setdefault((sh, ss), []).append(line)
    return blocks


def defined(lines, pattern):
    """What the lines after each .TP or .TQ define (pattern's first group, hyphens unescaped)."""
    out = []
    for i, line in enumerate(lines[:-1]):
        if line.startswith(('.TP', '.TQ')):
            m = pattern.search(lines[i + 1])
            if m:
                out.append(m.group(1).replace('\\-', '-'))
    return out


def groups(blocks):
    """{'READING OPTIONS': {options}} for every shared option section."""
    g = {}
    for (sh, ss), lines in blocks.items():
        if sh and sh.endswith(' OPTIONS') and ss is None:
            g[sh] = set(defined(lines, MAN_OPTION))
    return g


def man_commands(blocks):
    """{command: (options, [groups named], synopsis options)} of the COMMANDS section."""
    g = groups(blocks)
    out = {}
    for (sh, ss), lines in blocks.items():
        if sh == 'COMMANDS' and ss is not None:
            text = '\n'.join(lines)
            named = [name for name in g if name in text]
            out[ss] = (set(defined(lines, MAN_OPTION)), named, synopsis_options(lines))
    return out, g


def check_commands(commands, helps, man_text, tables, synopses=True):
    """Problems (strings) between the commands' option tables (TOOL --list options COMMAND) and
    usage lines (helps: their --help texts; synopses: whether the man page's synopses name the
    options of the usage lines: gguf-catalog's say [OPTIONS]), and the man page."""
    blocks = parse_man(man_text)
    sections, g = man_commands(blocks)
    problems = []
    for c in sorted(set(commands) - set(sections)):
        problems.append(f'{c}: no section in the man page')
    for c in sorted(set(sections) - set(commands)):
        problems.append(f'{c}: a section in the man page, but no such command')
    for c in commands:
        if c not in sections:
            continue
        own, named, synopsis = sections[c]
        man = set(own)
        for name in named:
            man |= g[name]
        helped = table_options(tables[c])
        if synopses:
            usage = usage_options(helps[c])
            for o in sorted(synopsis - usage):
                problems.append(f'{c}: --{o} is in the synopsis of the man page, not in the usage lines')
            for o in sorted(usage - synopsis):
                problems.append(f'{c}: --{o} is in the usage lines, not in the synopsis of the man page')
        for o in sorted(helped - man):
            problems.append(f'{c}: --{o} is in its options, not in the man page')
        for o in sorted(man - helped):
            where = 'its section' if o in own else ' / '.join(n for n in named if o in g[n])
            problems.append(f'{c}: --{o} is in the man page ({where}), not in its options')
    return problems


def run(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.stdout


def tool_commands(tool):
    return run([tool, '--list', 'commands']).split()


def check_tool(kind, tool, man_text):
    commands = tool_commands(tool)
    if not commands:
        return [f'{tool}: no commands listed']
    helps = {c: run([tool, c, '--help']) for c in commands}
    tables = {c: run([tool, '--list', 'options', c]) for c in commands}
    return check_commands(commands, helps, man_text, tables, kind == 'edit')


def check_schema(man_text, db):
    blocks = parse_man(man_text)
    man = {}
    for (sh, ss), lines in blocks.items():
        if sh == 'SCHEMA' and ss is not None:
            man[ss.split()[0]] = defined(lines, re.compile(r'^\.B ([a-z_0-9]+)\s*$'))
    con = sqlite3.connect(f'file:{db}?mode=ro', uri=True)
    real = {}
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') "
                               "AND name NOT LIKE 'sqlite_%'"):
        real[name] = [row[1] for row in con.execute(f'PRAGMA table_info("{name}")')]
    problems = []
    for t in sorted(set(real) - set(man)):
        problems.append(f'table {t}: not in the SCHEMA section')
    for t in sorted(set(man) - set(real)):
        problems.append(f'table {t}: in the SCHEMA section, not in the catalog')
    for t in sorted(set(man) & set(real)):
        for c in real[t]:
            if c not in man[t]:
                problems.append(f'{t}.{c}: not in the SCHEMA section')
        for c in man[t]:
            if c not in real[t]:
                problems.append(f'{t}.{c}: in the SCHEMA section, not in the catalog')
    return problems


def selftest(tool, man_text):
    """The check must fail when an option is added to one side only."""
    commands = tool_commands(tool)
    helps = {c: run([tool, c, '--help']) for c in commands}
    tables = {c: run([tool, '--list', 'options', c]) for c in commands}
    base = check_commands(commands, helps, man_text, tables)
    if base:
        return ['selftest: the real pages do not agree to begin with'] + base
    problems = []
    # an option only in the table
    more = dict(tables)
    more['show'] = tables['show'] + '--only-in-table\n'
    if not any('--only-in-table' in p for p in check_commands(commands, helps, man_text, more)):
        problems.append('selftest: an option only in the table was not noticed')
    # an option only in a synopsis: the tool's usage lines, the man page's
    usage = dict(helps)
    usage['show'] = helps['show'].replace('[--full]', '[--full] [--only-in-usage]', 1)
    if not any('--only-in-usage' in p for p in check_commands(commands, usage, man_text, tables)):
        problems.append('selftest: an option only in the usage lines was not noticed')
    extra = man_text.replace('.RB [ \\-\\-full ]\n', '.RB [ \\-\\-full ]\n.RB [ \\-\\-only\\-in\\-synopsis ]\n', 1)
    if not any('--only-in-synopsis' in p for p in check_commands(commands, helps, extra, tables)):
        problems.append('selftest: an option only in the man synopsis was not noticed')
    # an option only in the man page: in a command's section, and in a shared group
    for anchor in ('.SS show\n', '.SH "READING OPTIONS"\n'):
        i = man_text.index(anchor)
        j = man_text.index('.TP\n', i)
        extra = man_text[:j] + '.TP\n.B \\-\\-only\\-in\\-man\nTest.\n' + man_text[j:]
        if not any('--only-in-man' in p for p in check_commands(commands, helps, extra, tables)):
            problems.append(f'selftest: an option only in the man page ({anchor.strip()}) was not noticed')
    # an option dropped from the man page
    fewer = man_text.replace('.TP\n.B \\-\\-markdown\n', '.PP\n', 1)
    if not any('--markdown' in p for p in check_commands(commands, helps, fewer, tables)):
        problems.append('selftest: an option missing from the man page was not noticed')
    # a command without a section
    gone = man_text.replace('.SS hash\n', '.SS hash_gone\n', 1)
    if not any(p.startswith('hash:') for p in check_commands(commands, helps, gone, tables)):
        problems.append('selftest: a command without a section was not noticed')
    return problems


def main():
    kind, tool, man = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(man, encoding='utf-8') as f:
        text = f.read()
    if kind in ('edit', 'catalog'):
        problems = check_tool(kind, tool, text)
    elif kind == 'schema':
        problems = check_schema(text, sys.argv[4])
    else:
        problems = selftest(tool, text)
    for p in problems:
        print(f'{man}: {p}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
