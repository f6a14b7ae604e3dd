#!/usr/bin/env python3
"""filecheck.py TILEC PATH... - FileCheck-style checks of tilec's output.

Each PATH is a .tile file, or a folder whose .tile files with CHECK lines
are run (the others are left to tests/golden.sh). For each file the runner
runs `tilec --emit-cuda ARGS FILE` and matches the output against the
directives in the file's `//` comments, in order:

  // RUN-ARGS: --arch sm_90a --set M=1000   extra tilec arguments
  // MODE: ir               `tilec --emit-ir ARGS FILE` instead (stdout)
  // MODE: ir-after=PASS    the IR after PASS (`--print-ir-after=PASS
                            --emit-cuda`, its stderr) instead
  // CHECK: text            the first line at or after the previous match
                            (same line, after it, included) containing text
  // CHECK-NEXT: text       the line right after the previous match's
  // CHECK-SAME: text       the previous match's line, after the match
  // CHECK-NOT: text        no line between the previous match and the next
                            one (or the end of the output, if none follows)
  // CHECK-COUNT-N: text    N matches, one after another (as N CHECKs)
  // XFAIL[: LINE]          (a file's first line) the checks must fail,
                            with LINE given: first at the directive on LINE

Text matches as a substring; runs of blanks match any run of blanks;
{{regex}} pieces are Python regular expressions. tilec must exit 0. Of the
--emit-cuda output the pasted device header (from the first #include up to
the first `extern "C"` line) is left out: the checks see the three comment
lines on top (values, launch) and the kernels. A line starting `// CHECK`
or `// RUN`/`// MODE` that is none of the above is an error, so a misspelt
directive cannot pass silently.

Options: --ignore-xfail (run XFAIL files as ordinary ones: the runner must
then fail), -v (print each file's result).
"""
import os
import re
import subprocess
import sys

DIRECTIVE = re.compile(r'^\s*//\s*(CHECK(?:-[A-Z0-9-]*)?|RUN[A-Z-]*|MODE|XFAIL)\s*(:?)(.*)$')
KINDS = re.compile(r'^CHECK(?:-(NEXT|SAME|NOT|COUNT-([1-9][0-9]*)))?$')
CONTEXT = 3  # output lines shown around a failed search


class CheckError(Exception):
    def __init__(self, lineno, message, where=None):
        super().__init__(message)
        self.lineno = lineno
        self.message = message
        self.where = where  # (first, last) output lines to show


def pattern(text):
    """The regular expression of a directive's text."""
    out = []
    pos = 0
    while True:
        start = text.find('{{', pos)
        literal = text[pos:] if start < 0 else text[pos:start]
        out.append(r'[ \t]+'.join(re.escape(w) for w in re.split(r'[ \t]+', literal)))
        if start < 0:
            break
        end = text.find('}}', start + 2)
        if end < 0:
            raise ValueError('unterminated {{')
        out.append('(?:' + text[start + 2:end] + ')')
        pos = end + 2
    return re.compile(''.join(out))


def parse(path):
    """(args, mode, directives) of a test file; directives are
    (lineno, kind, count, text, regex, name)."""
    args, mode, checks = [], 'cuda', []
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    for n, line in enumerate(lines, 1):
        m = DIRECTIVE.match(line)
        if not m:
            continue
        name, colon, text = m.group(1), m.group(2), m.group(3).strip()
        if name == 'XFAIL':
            if n != 1:
                raise CheckError(n, 'XFAIL must be the first line')
            continue
        if not colon:
            raise CheckError(n, f"'{name}' without a colon")
        if name == 'RUN-ARGS':
            args += text.split()
            continue
        if name == 'MODE':
            if text != 'ir' and not re.fullmatch(r'ir-after=[a-z_]+', text):
                raise CheckError(n, f"unknown MODE '{text}' (ir, ir-after=PASS)")
            mode = text
            continue
        k = KINDS.match(name)
        if not k:
            raise CheckError(n, f"unknown directive '{name}'")
        kind = 'COUNT' if k.group(2) else (k.group(1) or 'CHECK')
        if not text:
            raise CheckError(n, f'{name}: empty text')
        if kind in ('NEXT', 'SAME') and not any(c[1] != 'NOT' for c in checks):
            raise CheckError(n, f'{name} without a CHECK before it')
        try:
            rx = pattern(text)
        except (ValueError, re.error) as e:
            raise CheckError(n, f'{name}: bad pattern: {e}')
        checks.append((n, kind, int(k.group(2) or 1), text, rx, name))
    return args, mode, checks


def xfail_of(path):
    """None, or the line an XFAIL file must fail at (0: any directive)."""
    with open(path, encoding='utf-8') as f:
        m = re.match(r'^//\s*XFAIL\s*(?::\s*([0-9]+))?\s*$', f.readline())
    return None if not m else int(m.group(1) or 0)


def run_tilec(tilec, path, args, mode):
    if mode == 'ir':
        cmd = [tilec, '--emit-ir'] + args + [path]
    elif mode.startswith('ir-after='):
        cmd = [tilec, '--print-ir-after=' + mode[len('ir-after='):], '--emit-cuda'] + args + [path]
    else:
        cmd = [tilec, '--emit-cuda'] + args + [path]
    shown = ' '.join(['tilec'] + cmd[1:])
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    out = (p.stderr if mode.startswith('ir-after=') else p.stdout).decode('utf-8', 'replace')
    if p.returncode != 0:
        raise CheckError(0, f'`{shown}` exited {p.returncode}:\n'
                         + p.stderr.decode('utf-8', 'replace')[-2000:])
    lines = out.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    if mode == 'cuda':
        inc = next((i for i, l in enumerate(lines) if l.startswith('#include')), None)
        ker = next((i for i, l in enumerate(lines) if l.startswith('extern "C"')), None)
        if inc is not None and ker is not None and inc < ker:
            lines = lines[:inc] + lines[ker:]
    return lines, shown


def check(lines, checks):
    """Raises CheckError at the first directive that fails."""
    line, col = 0, 0       # where the previous match ended
    nots = []              # CHECK-NOTs waiting for the next match

    def search(rx, first, col0, last):
        for i in range(first, min(last, len(lines))):
            m = rx.search(lines[i], col0 if i == first else 0)
            if m:
                return i, m
        return None, None

    def check_nots(end_line, end_col):
        for (n, _, _, text, rx, name) in nots:
            for i in range(line, min(end_line + 1, len(lines))):
                s = lines[i]
                lo = col if i == line else 0
                hi = end_col if i == end_line else len(s)
                m = rx.search(s, lo)
                if m and m.end() <= hi:
                    raise CheckError(n, f'{name}: excluded string found: {text}', (i, i))
        nots.clear()

    for (n, kind, count, text, rx, name) in checks:
        if kind == 'NOT':
            nots.append((n, kind, count, text, rx, name))
            continue
        for rep in range(count):
            if kind == 'SAME':
                i, m = search(rx, line, col, line + 1)
                if m is None:
                    raise CheckError(n, f'{name}: expected string not found on the line of the previous match: {text}', (line, line))
            elif kind == 'NEXT':
                i, m = search(rx, line + 1, 0, line + 2)
                if m is None:
                    j, _ = search(rx, line + 1, 0, len(lines))
                    found = f' (found on output line {j + 1})' if j is not None else ''
                    raise CheckError(n, f'{name}: expected string not found on the next line{found}: {text}', (line, line + 1))
            else:
                i, m = search(rx, line, col, len(lines))
                if m is None:
                    what = f' (match {rep + 1} of {count})' if kind == 'COUNT' else ''
                    raise CheckError(n, f'{name}: expected string not found{what}: {text}', (line, line + 2 * CONTEXT))
            check_nots(i, m.start())
            line, col = i, m.end()
    check_nots(len(lines) - 1, 1 << 30)


def show(lines, where):
    first, last = where
    out = []
    for i in range(max(0, first - CONTEXT), min(len(lines), last + CONTEXT + 1)):
        mark = '>' if first <= i <= last else ' '
        out.append(f'  {mark}{i + 1:5}| {lines[i]}')
    if not out:
        out.append('  (end of output)')
    return '\n'.join(out)


def run_file(tilec, path, ignore_xfail, verbose):
    """True when the file passes; prints its errors."""
    lines, shown = [], 'tilec'
    xfail = None if ignore_xfail else xfail_of(path)
    try:
        args, mode, checks = parse(path)
        if not checks:
            raise CheckError(0, 'no CHECK directives')
        lines, shown = run_tilec(tilec, path, args, mode)
        check(lines, checks)
    except CheckError as e:
        if xfail is not None and e.lineno > 0 and xfail in (0, e.lineno):
            if verbose:
                print(f'{path}: XFAIL (line {e.lineno}: {e.message})')
            return True
        print(f'{path}:{e.lineno}: error: {e.message}')
        if e.where is not None:
            print(f'output of `{shown}`, around where it searched:')
            print(show(lines, e.where))
        if xfail:
            print(f'{path}:1: note: XFAIL expected the failure at line {xfail}')
        return False
    except subprocess.TimeoutExpired:
        print(f'{path}:0: error: tilec timed out')
        return False
    if xfail is not None:
        print(f'{path}:1: error: XFAIL test passed: its checks cannot fail as they should')
        return False
    if verbose:
        print(f'{path}: ok ({len(checks)} checks)')
    return True


def has_checks(path):
    with open(path, encoding='utf-8') as f:
        return any(re.match(r'^\s*//\s*CHECK', l) for l in f)


def main(argv):
    opts = [a for a in argv if a.startswith('-')]
    rest = [a for a in argv if not a.startswith('-')]
    unknown = [o for o in opts if o not in ('--ignore-xfail', '-v')]
    if unknown or len(rest) < 2:
        print('usage: ' + __doc__.split('\n')[0], file=sys.stderr)
        return 2
    tilec = os.path.realpath(rest[0])
    files = []
    for p in rest[1:]:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, f) for f in os.listdir(p)
                            if f.endswith('.tile') and has_checks(os.path.join(p, f)))
        else:
            files.append(p)
    passed = failed = 0
    for f in files:
        if run_file(tilec, f, '--ignore-xfail' in opts, '-v' in opts):
            passed += 1
        else:
            failed += 1
    print(f'{passed} passed, {failed} failed')
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
