#!/usr/bin/env python3
"""Generate the header conformance checks from the ACL API spec (markdown).

Reads the spec's tables and C code blocks (error codes, enums, macros, typedefs, structs,
function declarations, the header layout of section 4.1, the "does not exist" names of
sections 2.14 and 3) and writes check sources under tests/unit/headers/generated/.
The output is committed, so building the tests does not need Python; rerun this script
whenever the spec changes:

    python3 tools/gen_header_checks.py [--spec PATH] [--out DIR]

--spec defaults to ../shared/spec/acl-api.md from the repository root (where the shared spec sits).

The script refuses to write anything if the spec does not parse into the expected shape
(for example if section 2 does not yield exactly the functions of its quick index).
"""

import argparse
import json
import os
import re
import sys
from collections import OrderedDict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The shared spec sits next to the project: ../shared/spec/acl-api.md from the repository root.
DEFAULT_SPEC = os.path.normpath(os.path.join(ROOT, '..', 'shared', 'spec', 'acl-api.md'))

# Our header files (path relative to api/include) in a stable order.
HEADERS = [
    'acl/acl.h', 'acl/acl_base.h', 'acl/acl_base_rt.h', 'acl/acl_base_mdl.h', 'acl/acl_rt.h',
    'acl/acl_rt_allocator.h', 'acl/acl_mdl.h', 'acl/acl_op.h', 'acl/acl_op_compiler.h',
    'acl/acl_prof.h', 'acl/acl_dump.h', 'acl/error_codes/rt_error_codes.h',
    'acl/error_codes/ge_error_codes.h', 'ge/ge_error_codes.h',
]

# Include edges the spec's graph does not list (acl_dump.h is not in it); our choice.
EXTRA_EDGES = {'acl/acl_dump.h': ['acl/acl_base.h']}

# Sections whose title names no single header (1.7: the text says acl_rt.h; 1.9: the
# function pointer typedefs; 1.13: acl_op.h, with the exceptions of HEADER_OVERRIDES).
SECTION_HEADERS = {'1.7': 'acl/acl_rt.h', '1.9': 'acl/acl_rt_allocator.h', '1.13': 'acl/acl_op.h'}

# Items whose header the section title does not settle.
HEADER_OVERRIDES = {
    'aclopCompileType': 'acl/acl_op_compiler.h',   # 4.1 table
    'aclOpCompileFlag': 'acl/acl_op_compiler.h',   # used by the compiler API; our choice
    'ACL_OP_DUMP_OP_AICORE_ARGS': 'acl/acl_dump.h',  # 1.13 comment and 4.1 table
    'aclrtDeviceLimit': 'acl/acl_rt.h',            # Appendix A, used by acl_rt.h functions
}


class SpecError(Exception):
    pass


def fail(msg):
    raise SpecError(msg)


# --------------------------------------------------------------------------- parsing

def strip_c_comments(text):
    return re.sub(r'/\*.*?\*/', '', text, flags=re.S)


def c_int(text):
    """Value of a C integer literal such as 0x10ULL, 401U, -1, (0X2U)."""
    t = text.strip()
    while t.startswith('(') and t.endswith(')'):
        t = t[1:-1].strip()
    neg = t.startswith('-')
    if neg:
        t = t[1:].strip()
    t = re.sub(r'[uUlL]+$', '', t)
    v = int(t, 16) if t.lower().startswith('0x') else int(t, 10)
    return -v if neg else v


class Spec:
    def __init__(self, path):
        self.lines = open(path, encoding='utf-8').read().split('\n')
        self.codes = []          # (group, name, value)          group: acl | rt | ge
        self.enums = []          # dict(tag, name, header, enumerators=[(name, value, deprecated)])
        self.macros = []         # (header, name, spelling)
        self.string_macros = []  # (header, name, spelling)
        self.static_consts = []  # (header, type, name, value)
        self.typedefs = []       # (header, name, definition)    from table 1.2
        self.fn_typedefs = []    # (header, name, text)          function pointer typedefs
        self.structs = []        # dict(kind, tag, name, header, text, members, guard)
        self.functions = []      # dict(name, header, prefix, decl, deprecated, source)
        self.graph = OrderedDict()
        self.std_includes = OrderedDict()
        self.guards = OrderedDict()
        self.absent = []
        self.quick_index = []    # (name, header)
        self._parse()

    # helpers ---------------------------------------------------------------
    def section_ranges(self):
        """(start, end, title) for every ###/#### heading."""
        heads = [(i, l) for i, l in enumerate(self.lines) if re.match(r'#{2,4} ', l)]
        out = []
        for k, (i, l) in enumerate(heads):
            end = heads[k + 1][0] if k + 1 < len(heads) else len(self.lines)
            out.append((i, end, l))
        return out

    def find(self, pattern):
        for i, l in enumerate(self.lines):
            if re.match(pattern, l):
                return i
        fail('heading not found: ' + pattern)

    def code_blocks(self, start, end, lang='c'):
        blocks, i = [], start
        while i < end:
            if self.lines[i].strip() == '```' + lang:
                j = i + 1
                while not self.lines[j].startswith('```'):
                    j += 1
                blocks.append((i, '\n'.join(self.lines[i + 1:j])))
                i = j
            i += 1
        return blocks

    def tables(self, start, end):
        """Markdown tables in [start, end) as (header_cells, rows)."""
        out, i = [], start
        while i < end:
            if self.lines[i].startswith('|') and i + 1 < end and re.match(r'\|\s*-', self.lines[i + 1]):
                head = [c.strip() for c in self.lines[i].strip().strip('|').split('|')]
                rows, j = [], i + 2
                while j < end and self.lines[j].startswith('|'):
                    rows.append([c.strip() for c in self.lines[j].strip().strip('|').split('|')])
                    j += 1
                out.append((head, rows))
                i = j
            i += 1
        return out

    @staticmethod
    def tick(cell):
        m = re.fullmatch(r'`([^`]*)`', cell.strip())
        return m.group(1) if m else None

    # the parse -------------------------------------------------------------
    def _parse(self):
        s1 = self.find(r'## 1\. ')
        s2 = self.find(r'## 2\. ')
        s3 = self.find(r'## 3\. ')
        s4 = self.find(r'## 4\. ')
        sa = self.find(r'## Appendix A')
        sb = self.find(r'## Appendix B')
        self._parse_codes(s1, s2)
        self._parse_section1(s1, s2)
        self._parse_functions(s2, self.find(r'### 2\.14 '))
        self._parse_appendix_a(sa, sb)
        self._parse_layout(s4, sa)
        self._parse_absent(self.find(r'### 2\.14 '), s4)
        self._validate()

    def _parse_codes(self, s1, s2):
        groups = [('#### 1.3.1', 'acl'), ('#### 1.3.2', 'rt'), ('#### 1.3.3', 'ge')]
        for head, group in groups:
            start = self.find(re.escape(head))
            end = next(e for (b, e, t) in self.section_ranges() if b == start)
            tabs = [t for t in self.tables(start, end) if t[0][:2] == ['Name', 'Value']]
            if len(tabs) != 1:
                fail('error code table missing under ' + head)
            for row in tabs[0][1]:
                name = self.tick(row[0])
                if not name or not re.fullmatch(r'-?\d+', row[1]):
                    fail('bad error code row: %r' % row)
                self.codes.append((group, name, int(row[1])))

    def _header_of_title(self, title):
        m = re.search(r'\(`([\w./]+\.h)`', title)
        return 'acl/' + m.group(1) if m else None

    def _parse_section1(self, s1, s2):
        for (b, e, title) in self.section_ranges():
            if not (s1 < b < s2) or not title.startswith('### 1.'):
                continue
            num = title.split()[1]
            if num in ('1.1', '1.3'):
                continue   # portability macros: checked by hand; 1.3: the code tables
            header = self._header_of_title(title)
            if num == '1.2':
                self._parse_typedef_table(b, e)
                continue
            header = SECTION_HEADERS.get(num, header)
            if header is None:
                fail('no header in title: ' + title)
            if num == '1.4':
                self._parse_datatype_table(b, e, header)
            for head, rows in self.tables(b, e):
                if head[:2] == ['Macro', 'Value']:
                    for row in rows:
                        name, spelling = self.tick(row[0]), self.tick(row[1])
                        if not name or spelling is None:
                            fail('bad macro row %r' % row)
                        self._add_macro(header, name, spelling)
            for line, block in self.code_blocks(b, e):
                self._parse_block(block, header, line)

    def _parse_typedef_table(self, b, e):
        tabs = [t for t in self.tables(b, e) if t[0] == ['Type', 'Definition', 'Declared in']]
        if len(tabs) != 1:
            fail('typedef table (1.2) not found')
        for row in tabs[0][1]:
            name, defn = self.tick(row[0]), self.tick(row[1])
            self.typedefs.append(('acl/' + row[2].strip(), name, defn))

    def _parse_datatype_table(self, b, e, header):
        tabs = [t for t in self.tables(b, e) if t[0][:2] == ['Enumerator', 'Value']]
        if len(tabs) != 1:
            fail('aclDataType table not found')
        ens = [(self.tick(r[0]), int(r[1]), False) for r in tabs[0][1]]
        self.enums.append(dict(tag=None, name='aclDataType', header=header, enumerators=ens))

    def _add_macro(self, header, name, spelling):
        header = HEADER_OVERRIDES.get(name, header)
        if spelling.startswith('"'):
            self.string_macros.append((header, name, spelling))
        else:
            c_int(spelling)  # must parse
            self.macros.append((header, name, spelling))

    def _parse_block(self, block, header, line):
        text = block
        # enums -------------------------------------------------------------
        for m in re.finditer(r'(typedef\s+)?enum\s*(\w+)?\s*\{(.*?)\}\s*(\w+)?\s*;', text, re.S):
            typedef, tag, body, name = m.group(1), m.group(2), m.group(3), m.group(4)
            if not typedef:
                name = None
            ens, nxt = [], 0
            for raw in body.split('\n'):
                raw = raw.strip()
                if not raw:
                    continue
                dep = '/* deprecated */' in raw
                comment = re.search(r'/\*\s*=\s*(-?\d+)\s*\*/', raw)
                item = strip_c_comments(raw).strip().rstrip(',').strip()
                mm = re.fullmatch(r'(\w+)\s*(?:=\s*(.+))?', item)
                if not mm:
                    fail('bad enumerator %r (line %d)' % (raw, line))
                value = c_int(mm.group(2)) if mm.group(2) is not None else nxt
                if comment and int(comment.group(1)) != value:
                    fail('enumerator %s: comment says %s, computed %d' % (mm.group(1), comment.group(1), value))
                ens.append((mm.group(1), value, dep))
                nxt = value + 1
            key = name or tag
            self.enums.append(dict(tag=tag, name=name, header=HEADER_OVERRIDES.get(key, header),
                                   enumerators=ens))
        text_no_enums = re.sub(r'(typedef\s+)?enum\s*(\w+)?\s*\{.*?\}\s*(\w+)?\s*;', '', text, flags=re.S)
        # structs and unions ------------------------------------------------
        guard = None
        gm = re.search(r'#ifndef\s+(__\w+__)', text_no_enums)
        if gm:
            guard = gm.group(1)
        pos = 0
        clean = strip_c_comments(text_no_enums)
        for m in re.finditer(r'(typedef\s+)?(struct|union)\s*(\w+)?\s*\{', clean):
            if m.start() < pos:
                continue
            depth, k = 1, m.end()
            while depth:
                depth += {'{': 1, '}': -1}.get(clean[k], 0)
                k += 1
            tail = re.match(r'\s*(\w+)?\s*;', clean[k:])
            name = tail.group(1) if (tail and m.group(1)) else None
            body = clean[m.end():k - 1]
            self.structs.append(dict(kind=m.group(2), tag=m.group(3), name=name, header=header,
                                     body=body, members=self._members(body),
                                     guard=guard if m.group(3) == 'dim3' else None))
            pos = k + (tail.end() if tail else 0)
        # remaining one-line items ------------------------------------------
        rest = re.sub(r'(typedef\s+)?(struct|union)\s*(\w+)?\s*\{.*\}\s*(\w+)?\s*;', '', clean, flags=re.S)
        for raw in rest.split('\n'):
            s = raw.strip()
            if not s or s.startswith('#ifndef') or s.startswith('#endif'):
                continue
            m = re.fullmatch(r'#define\s+(\w+)\s+(.+)', s)
            if m:
                self._add_macro(header, m.group(1), m.group(2).strip())
                continue
            m = re.fullmatch(r'static\s+const\s+(\w+)\s+(\w+)\s*=\s*(.+);', s)
            if m:
                self.static_consts.append((header, m.group(1), m.group(2), c_int(m.group(3))))
                continue
            m = re.fullmatch(r'typedef\s+[^;]*\(\s*\*\s*(\w+)\s*\)\s*\(.*\);', s)
            if m:
                self.fn_typedefs.append((header, m.group(1), s))
                continue
            if re.fullmatch(r'typedef\s+(void\s*\*|struct\s+\w+)\s*\w+;', s):
                continue   # plain typedefs: taken from table 1.2
            fail('unparsed line in code block at %d: %r' % (line, s))

    @staticmethod
    def _members(body):
        """Top-level members of a struct body: (type_text, name, dims_text, nested)."""
        out, depth, cur = [], 0, ''
        for ch in body:
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
            if ch == ';' and depth == 0:
                decl = ' '.join(cur.split())
                cur = ''
                if not decl:
                    continue
                nested = '{' in decl
                m = re.fullmatch(r'(.*?)\s*\b(\w+)\s*((?:\[[^\]]+\])*)', decl)
                if not m:
                    fail('bad member %r' % decl)
                out.append((m.group(1), m.group(2), m.group(3), nested))
            else:
                cur += ch
        if cur.strip():
            fail('trailing text in struct body: %r' % cur)
        return out

    def _parse_functions(self, s2, s214):
        tabs = [t for t in self.tables(s2, s214) if t[0][:4] == ['#', 'Function', 'Returns', 'Header']]
        if len(tabs) != 1:
            fail('quick index not found')
        for row in tabs[0][1]:
            self.quick_index.append((self.tick(row[1]), 'acl/' + row[3].strip()))
        m = re.search(r'\((\d+) functions\)', self.lines[s2])
        self.expected_functions = int(m.group(1))
        i = s2
        while i < s214:
            mm = re.fullmatch(r'#### `(\w+)`', self.lines[i])
            if mm:
                name = mm.group(1)
                j = i + 1
                while self.lines[j].strip() != '```c':
                    j += 1
                k = j + 1
                while not self.lines[k].startswith('```'):
                    k += 1
                decl_lines = [l.strip() for l in self.lines[j + 1:k] if l.strip()]
                while not self.lines[k].startswith('_Header:_'):
                    k += 1
                hm = re.match(r'_Header:_ `([^`]+)` · _Prefix:_ `([^`]+)`', self.lines[k])
                self._add_function(name, 'acl/' + hm.group(1), hm.group(2), decl_lines, 'section 2')
                i = k
            i += 1

    def _add_function(self, name, header, prefix, decl_lines, source):
        dep = None
        if decl_lines[0].startswith('ACL_DEPRECATED_MESSAGE('):
            dm = re.fullmatch(r'ACL_DEPRECATED_MESSAGE\("(.*)"\)', decl_lines[0])
            dep = dm.group(1)
            decl_lines = decl_lines[1:]
        if len(decl_lines) != 1:
            fail('declaration of %s spans %d lines' % (name, len(decl_lines)))
        decl = decl_lines[0]
        fm = re.fullmatch(r'(.*?)\b(\w+)\((.*)\);', decl)
        if not fm or fm.group(2) != name:
            fail('cannot read the declaration of %s: %r' % (name, decl))
        self.functions.append(dict(name=name, header=header, prefix=prefix, decl=decl,
                                   ret=fm.group(1).strip(), deprecated=dep, source=source))

    def _parse_appendix_a(self, sa, sb):
        header, i = None, sa
        while i < sb:
            l = self.lines[i]
            hm = re.fullmatch(r'\*\*`([\w./]+\.h)`\*\*', l.strip())
            if hm:
                header = 'acl/' + hm.group(1)
            if l.strip() == '```c':
                k = i + 1
                while not self.lines[k].startswith('```'):
                    k += 1
                block = self.lines[i + 1:k]
                if any('enum' in b for b in block):
                    self._parse_block('\n'.join(block), header, i)
                else:
                    pending = []
                    for b in block:
                        b = b.strip()
                        if not b:
                            continue
                        pending.append(b)
                        if b.endswith(';'):
                            name = re.search(r'\b(\w+)\(', pending[-1]).group(1)
                            prefix = 'MSVP_PROF_API' if header == 'acl/acl_prof.h' else 'ACL_FUNC_VISIBILITY'
                            self._add_function(name, header, prefix, pending, 'Appendix A')
                            pending = []
                i = k
            i += 1

    def _parse_layout(self, s4, sa):
        b = self.find(r'### 4\.1 ')
        blocks = self.code_blocks(b, sa, 'text')
        if len(blocks) != 1:
            fail('include graph block not found')
        for raw in blocks[0][1].split('\n'):
            m = re.match(r'(acl/[\w]+\.h)\s*->\s*(.*)', raw)
            if not m:
                continue
            src, rhs = m.group(1), re.sub(r'\(.*\)', '', m.group(2))
            deps = []
            self.std_includes[src] = re.findall(r'<([^>]+)>', rhs)
            for tok in re.findall(r'"[^"]+"|[\w/]+\.h|<[^>]+>', rhs):
                if tok.startswith('<'):
                    continue
                tok = tok.strip('"')
                if tok.startswith('acl/'):
                    deps.append(tok)
                elif tok.startswith('error_codes/'):
                    deps.append('acl/' + tok)
                else:
                    deps.append('acl/' + tok)
            self.graph[src] = deps
        for head, rows in self.tables(b, sa):
            if head[:3] == ['Header', 'Declares', 'Guard macro']:
                for row in rows:
                    guard = re.match(r'`(\w+)`', row[2])   # may be followed by "(sic)"
                    if not guard:
                        fail('bad guard cell %r' % row[2])
                    self.guards['acl/' + self.tick(row[0]).split('acl/', 1)[1]] = guard.group(1)
        if sorted(self.guards) != sorted(h for h in HEADERS if h != 'ge/ge_error_codes.h'):
            fail('guard table does not cover our headers: %s' % sorted(self.guards))
        self.guards['ge/ge_error_codes.h'] = self.guards['acl/error_codes/ge_error_codes.h']

    def _parse_absent(self, s214, s4):
        known = self.known_names()
        cand = []
        for head, rows in self.tables(s214, s4):
            if head[0] not in ('Requested', 'Seed-article name'):
                continue
            for row in rows:
                for tok in re.findall(r'`([^`]+)`', row[0]):
                    for ident in re.findall(r'[A-Za-z_][A-Za-z0-9_]*', tok):
                        if not re.match(r'(acl|ACL_)', ident) or ident in known:
                            continue
                        if ident not in cand:
                            cand.append(ident)
        self.absent = cand

    def known_names(self):
        names = {f['name'] for f in self.functions}
        names |= {n for (_, n, _) in self.codes}
        names |= {n for (_, n, _) in self.macros} | {n for (_, n, _) in self.string_macros}
        names |= {n for (_, n, _) in self.typedefs} | {n for (_, n, _) in self.fn_typedefs}
        for e in self.enums:
            names |= {x[0] for x in e['enumerators']}
            names |= {n for n in (e['tag'], e['name']) if n}
        for s in self.structs:
            names |= {n for n in (s['tag'], s['name']) if n}
        return names

    def _validate(self):
        sec2 = [f for f in self.functions if f['source'] == 'section 2']
        if len(sec2) != self.expected_functions:
            fail('section 2 yields %d functions, title says %d' % (len(sec2), self.expected_functions))
        if [(f['name'], f['header']) for f in sec2] != self.quick_index:
            fail('section 2 entries disagree with the quick index')
        names = [f['name'] for f in self.functions]
        if len(names) != len(set(names)):
            fail('duplicate function')
        for f in self.functions:
            if f['header'] not in HEADERS:
                fail('unknown header ' + f['header'])
        for e in self.enums:
            if e['header'] not in HEADERS:
                fail('enum %s: unknown header %s' % (e['name'] or e['tag'], e['header']))
        for g in self.graph:
            if g not in self.guards:
                self.graph_unknown = g
        allmac = [n for (_, n, _) in self.macros + self.string_macros]
        if len(allmac) != len(set(allmac)):
            fail('duplicate macro')

    # derived ---------------------------------------------------------------
    def closure(self, header):
        if header == 'ge/ge_error_codes.h':
            return {header}
        graph = dict(self.graph)
        for k, v in EXTRA_EDGES.items():
            graph[k] = graph.get(k, []) + v
        seen, todo = set(), [header]
        while todo:
            h = todo.pop()
            if h in seen:
                continue
            seen.add(h)
            todo.extend(graph.get(h, []))
        return seen


# --------------------------------------------------------------------------- emitting

BANNER = '/* Generated by tools/gen_header_checks.py from the ACL API spec. Do not edit. */\n'


def c_str(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def ident(header):
    return re.sub(r'\W', '_', header)


def replica_struct(spec, st, for_c, macro_values, replica_names):
    """Spec struct text renamed into our replica namespace (C: prefixed names)."""
    def ren(name):
        return ('arun_spec_' + name) if for_c else name
    body = st['body']
    for mac, val in macro_values.items():
        body = re.sub(r'\b%s\b' % mac, str(val), body)
    if for_c:
        for rn in replica_names:
            body = re.sub(r'\b%s\b' % rn, 'arun_spec_' + rn, body)
        # a nested union tag would clash with ours at file scope in C
        body = re.sub(r'\bunion\s+(\w+)\s*\{', r'union arun_spec_\1 {', body)
    body = '\n'.join('    ' + l.strip() for l in body.strip().split('\n') if l.strip())
    kind = st['kind']
    tag = st['tag']
    name = st['name']
    if tag == 'dim3' or (tag and not name):
        # dim3 (its C++ constructor does not change the layout) and struct MemAttrMapping
        if tag == 'dim3':
            return 'typedef struct %s {\n%s\n} %s;' % (ren('dim3'), body, ren('dim3'))
        return 'struct %s {\n%s\n};' % (ren(tag), body)
    return 'typedef %s %s{\n%s\n} %s;' % (kind, (ren(tag) + ' ') if tag else '', body, ren(name))


def struct_key(st):
    return st['name'] or st['tag']


def struct_ref(st, prefix=''):
    """How to name the struct type in code."""
    if st['name']:
        return prefix + st['name']
    return 'struct ' + prefix + st['tag']


def gen(spec, out):
    files = {}
    macro_values = OrderedDict((n, c_int(v)) for (_, n, v) in spec.macros)
    replica_names = [struct_key(s) for s in spec.structs]

    # ---------------------------------------------------------------- values.inc
    v = [BANNER, '/* Included by header_values_test.cpp, which defines the ARUN_* macros. */\n']
    v.append('/* Error codes of spec 1.3.1 (static const int in acl/acl_base_rt.h). */')
    v.append('#define ARUN_ACL_CODES(X) \\')
    v += ['    X(%s, %d) \\' % (n, val) for (g, n, val) in spec.codes if g == 'acl']
    v.append('\n/* Error codes of spec 1.3.2 (macros in acl/error_codes/rt_error_codes.h). */')
    v.append('#define ARUN_RT_CODES(X) \\')
    v += ['    X(%s, %s, %d) \\' % (n, c_str(str(val)), val) for (g, n, val) in spec.codes if g == 'rt']
    v.append('\n/* Error codes of spec 1.3.3 (static const uint32_t in acl/error_codes/ge_error_codes.h). */')
    v.append('#define ARUN_GE_CODES(X) \\')
    v += ['    X(%s, %dU) \\' % (n, val) for (g, n, val) in spec.codes if g == 'ge']
    v.append('\n/* Enumerators: X(enum type, enumerator, value, deprecated). */')
    v.append('#define ARUN_ENUMERATORS(X) \\')
    for e in spec.enums:
        t = e['name'] or e['tag']
        v += ['    X(%s, %s, %d, %d) \\' % (t, n, val, int(d)) for (n, val, d) in e['enumerators']]
    v.append('\n/* Enum tags that differ from nothing or from the typedef: X(tag, typedef name). */')
    v.append('#define ARUN_ENUM_TAGS(X) \\')
    v += ['    X(%s, %s) \\' % (e['tag'], e['name']) for e in spec.enums if e['tag'] and e['name']]
    v.append('\n/* Integer macros: X(name, spelling of the replacement list, literal). */')
    v.append('#define ARUN_INT_MACROS(X) \\')
    v += ['    X(%s, %s, %s) \\' % (n, c_str(s), s) for (_, n, s) in spec.macros]
    v.append('\n/* String macros: X(name, spelling, literal). */')
    v.append('#define ARUN_STRING_MACROS(X) \\')
    v += ['    X(%s, %s, %s) \\' % (n, c_str(s), s) for (_, n, s) in spec.string_macros]
    v.append('\n/* Other constants: X(type, name, value). */')
    v.append('#define ARUN_STATIC_CONSTS(X) \\')
    v += ['    X(%s, %s, %d) \\' % (t, n, val) for (_, t, n, val) in spec.static_consts]
    v.append('\n/* Scalar typedefs of spec 1.2: X(name, definition). */')
    v.append('#define ARUN_TYPEDEFS(X) \\')
    v += ['    X(%s, %s) \\' % (n, d) for (_, n, d) in spec.typedefs]
    v.append('\n/* Every declared function: X(name, export macro, header, deprecated). */')
    v.append('#define ARUN_FUNCTIONS(X) \\')
    v += ['    X(%s, %s, %s, %d) \\' % (f['name'], f['prefix'], c_str(f['header']), int(bool(f['deprecated'])))
          for f in spec.functions]
    v.append('\n/* Names the spec says do not exist (2.14, 3). */')
    v.append('#define ARUN_ABSENT_NAMES(X) \\')
    v += ['    X(%s) \\' % n for n in spec.absent]
    counts = OrderedDict([
        ('ACL_CODES', sum(1 for c in spec.codes if c[0] == 'acl')),
        ('RT_CODES', sum(1 for c in spec.codes if c[0] == 'rt')),
        ('GE_CODES', sum(1 for c in spec.codes if c[0] == 'ge')),
        ('ENUMS', len(spec.enums)),
        ('ENUMERATORS', sum(len(e['enumerators']) for e in spec.enums)),
        ('INT_MACROS', len(spec.macros)),
        ('STRING_MACROS', len(spec.string_macros)),
        ('STATIC_CONSTS', len(spec.static_consts)),
        ('TYPEDEFS', len(spec.typedefs)),
        ('FN_TYPEDEFS', len(spec.fn_typedefs)),
        ('STRUCTS', len(spec.structs)),
        ('STRUCT_MEMBERS', sum(len(s['members']) for s in spec.structs)),
        ('FUNCTIONS', len(spec.functions)),
        ('SECTION2_FUNCTIONS', spec.expected_functions),
        ('ABSENT_NAMES', len(spec.absent)),
    ])
    v.append('\n/* How many items each list above holds. */')
    v += ['#define ARUN_COUNT_%s %d' % (k, n) for k, n in counts.items()]
    files['values.inc'] = '\n'.join(v) + '\n'

    # ---------------------------------------------------------------- layout.inc (C++)
    L = [BANNER, '/* C++: spec structs replicated in namespace arun_spec, compared member by member. */\n',
         '#include <cstddef>', '#include <type_traits>', '', 'namespace arun_spec {']
    for st in spec.structs:
        if st['guard']:
            L.append('#ifndef %s' % st['guard'])
        L.append(replica_struct(spec, st, False, macro_values, replica_names))
        if st['guard']:
            L.append('#endif')
    L.append('}  // namespace arun_spec\n')
    L.append('/* X(type, spec type, member, member type is comparable) */')
    L.append('#define ARUN_STRUCT_MEMBERS(X) \\')
    for st in spec.structs:
        ours, theirs = struct_ref(st), struct_ref(st, 'arun_spec::')
        for (mtype, mname, dims, nested) in st['members']:
            comparable = not nested and not any(re.search(r'\b%s\b' % r, mtype) for r in replica_names)
            L.append('    X(%s, %s, %s, %d) \\' % (ours, theirs, mname, int(comparable)))
    L.append('')
    L.append('/* X(type, spec type) */')
    L.append('#define ARUN_STRUCTS(X) \\')
    L += ['    X(%s, %s) \\' % (struct_ref(s), struct_ref(s, 'arun_spec::')) for s in spec.structs]
    L.append('')
    L.append('/* Function pointer typedefs, replicated for comparison. */')
    L.append('namespace arun_spec_fn {')
    L += [t for (_, _, t) in spec.fn_typedefs]
    L.append('}  // namespace arun_spec_fn')
    L.append('#define ARUN_FN_TYPEDEFS(X) \\')
    L += ['    X(%s) \\' % n for (_, n, _) in spec.fn_typedefs]
    L.append('')
    files['layout.inc'] = '\n'.join(L) + '\n'

    # ---------------------------------------------------------------- c_layout.inc (C)
    C = [BANNER, '/* C: spec structs replicated with an arun_spec_ prefix and compared at compile time. */',
         '/* Needs <stddef.h>; ARUN_C_CHECK(tag, condition) is defined by the includer. */', '']
    for st in spec.structs:
        if st['guard']:
            C.append('#ifndef %s' % st['guard'])
        C.append(replica_struct(spec, st, True, macro_values, replica_names))
        ours, theirs = struct_ref(st), struct_ref(st, 'arun_spec_')
        key = struct_key(st)
        C.append('ARUN_C_CHECK(size_%s, sizeof(%s) == sizeof(%s));' % (key, ours, theirs))
        for (mtype, mname, dims, nested) in st['members']:
            C.append('ARUN_C_CHECK(off_%s_%s, offsetof(%s, %s) == offsetof(%s, %s));'
                     % (key, mname, ours, mname, theirs, mname))
            C.append('ARUN_C_CHECK(msz_%s_%s, sizeof(((%s *)0)->%s) == sizeof(((%s *)0)->%s));'
                     % (key, mname, ours, mname, theirs, mname))
        if st['guard']:
            C.append('#endif')
        C.append('')
    files['c_layout.inc'] = '\n'.join(C) + '\n'

    # ---------------------------------------------------------------- per-header TUs
    by_header = {h: dict(functions=[], enums=[], macros=[], consts=[], typedefs=[], fn_typedefs=[],
                         structs=[]) for h in HEADERS}
    for f in spec.functions:
        by_header[f['header']]['functions'].append(f)
    for e in spec.enums:
        by_header[e['header']]['enums'].append(e)
    for (h, n, s) in spec.macros + spec.string_macros:
        by_header[h]['macros'].append(n)
    for (g, n, val) in spec.codes:
        h = {'acl': 'acl/acl_base_rt.h', 'rt': 'acl/error_codes/rt_error_codes.h',
             'ge': 'acl/error_codes/ge_error_codes.h'}[g]
        if g == 'rt':
            by_header[h]['macros'].append(n)
        else:
            by_header[h]['consts'].append((('const int' if g == 'acl' else 'const uint32_t'), n))
    by_header['ge/ge_error_codes.h']['consts'] = list(by_header['acl/error_codes/ge_error_codes.h']['consts'])
    for (h, t, n, val) in spec.static_consts:
        by_header[h]['consts'].append(('const ' + t, n))
    for (h, n, d) in spec.typedefs:
        by_header[h]['typedefs'].append((n, d))
    for (h, n, t) in spec.fn_typedefs:
        by_header[h]['fn_typedefs'].append((n, t))
    for st in spec.structs:
        by_header[st['header']]['structs'].append(st)

    for h in HEADERS:
        items = by_header[h]
        closure = spec.closure(h)
        guards = []
        for other in HEADERS:
            g = spec.guards[other]
            inside = other in closure or (other == 'ge/ge_error_codes.h' and 'acl/error_codes/ge_error_codes.h' in closure) \
                or (other == 'acl/error_codes/ge_error_codes.h' and h == 'ge/ge_error_codes.h')
            if (g, inside) not in guards:
                guards.append((g, inside))
        common = ['#include "%s"' % h, '',
                  '/* Include graph (spec 4.1): exactly these guards are defined now. */']
        for g, inside in guards:
            if inside:
                common += ['#ifndef %s' % g, '#error "%s should be included by %s"' % (g, h), '#endif']
            else:
                common += ['#ifdef %s' % g, '#error "%s must not be pulled in by %s"' % (g, h), '#endif']
        common.append('')
        if items['macros']:
            common.append('/* Macros this header defines. */')
            for n in items['macros']:
                common += ['#ifndef %s' % n, '#error "%s is not a macro in %s"' % (n, h), '#endif']
            common.append('')
        if items['consts']:
            common.append('/* Constants that must not be macros. */')
            for t, n in items['consts']:
                common += ['#ifdef %s' % n, '#error "%s must not be a macro"' % n, '#endif']
            common.append('')

        # C++ ---------------------------------------------------------------
        cpp = [BANNER, '/* Checks the declarations that spec assigns to %s, including only that header. */' % h]
        cpp += common
        cpp += ['#include <type_traits>', '']
        if items['functions']:
            cpp.append('namespace arun_spec_decl {')
            cpp += [f['decl'] for f in items['functions']]
            cpp.append('}  // namespace arun_spec_decl\n')
            cpp.append('#pragma GCC diagnostic push')
            cpp.append('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
            for f in items['functions']:
                cpp.append('static_assert(std::is_same<decltype(::%s), decltype(arun_spec_decl::%s)>::value, "%s");'
                           % (f['name'], f['name'], f['name']))
            cpp.append('#pragma GCC diagnostic pop\n')
        for t, n in items['consts']:
            cpp.append('static_assert(std::is_same<decltype(%s), %s>::value, "%s");' % (n, t, n))
        for n, d in items['typedefs']:
            cpp.append('static_assert(std::is_same<%s, %s>::value, "%s");' % (n, d, n))
        if items['fn_typedefs']:
            cpp.append('namespace arun_spec_fn {')
            cpp += [t for (_, t) in items['fn_typedefs']]
            cpp.append('}  // namespace arun_spec_fn')
            for n, _ in items['fn_typedefs']:
                cpp.append('static_assert(std::is_same<::%s, arun_spec_fn::%s>::value, "%s");' % (n, n, n))
        if items['enums']:
            cpp.append('#pragma GCC diagnostic push')
            cpp.append('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
            for e in items['enums']:
                t = e['name'] or e['tag']
                if e['tag'] and e['name']:
                    cpp.append('static_assert(std::is_same<enum %s, %s>::value, "tag of %s");' % (e['tag'], t, t))
                for (n, val, d) in e['enumerators']:
                    cpp.append('static_assert(std::is_same<decltype(%s), %s>::value && %s == %d, "%s");'
                               % (n, t, n, val, n))
            cpp.append('#pragma GCC diagnostic pop')
        for st in items['structs']:
            if st['guard']:
                cpp.append('#ifndef %s' % st['guard'])
            cpp.append('static_assert(sizeof(%s) > 0, "%s is complete");' % (struct_ref(st), struct_key(st)))
            if st['guard']:
                cpp.append('#endif')
        cpp.append('')
        files['only_%s.cpp' % ident(h)] = '\n'.join(cpp) + '\n'

        # C -----------------------------------------------------------------
        c = [BANNER, '/* C view of %s, included alone. */' % h]
        c += common
        if items['functions']:
            c.append('/* The spec declarations again: a conflicting type is a hard error in C. */')
            c += ['%s %s' % (f['prefix'], f['decl']) for f in items['functions']]
            c.append('')
        if items['enums']:
            c.append('/* Enumerator values (enumerators are integer constant expressions in C). */')
            c.append('#if defined(__GNUC__)')
            c.append('#pragma GCC diagnostic push')
            c.append('#pragma GCC diagnostic ignored "-Wdeprecated-declarations"')
            c.append('#endif')
            for e in items['enums']:
                for (n, val, d) in e['enumerators']:
                    c.append('extern char arun_chk_%s[(%s == %d) ? 1 : -1];' % (n, n, val))
            c.append('#if defined(__GNUC__)')
            c.append('#pragma GCC diagnostic pop')
            c.append('#endif')
        ints = [(n, s) for (hh, n, s) in spec.macros if hh == h]
        if h == 'acl/error_codes/rt_error_codes.h':
            ints += [(n, str(val)) for (g, n, val) in spec.codes if g == 'rt']
        if ints:
            c.append('/* Macro values, usable in #if. */')
            for n, s in ints:
                c += ['#if %s != %s' % (n, s), '#error "%s"' % n, '#endif']
        c.append('extern int arun_only_%s;' % ident(h))
        files['only_%s.c' % ident(h)] = '\n'.join(c) + '\n'

    # ---------------------------------------------------------------- visibility stubs
    S = [BANNER, '/* Stub definitions of every declared function, for the export test. */',
         '#include "acl/acl.h"', '#include "acl/acl_prof.h"', '#include "acl/acl_op_compiler.h"',
         '#include "acl/acl_rt_allocator.h"', '#include "acl/acl_dump.h"', '']
    for f in spec.functions:
        body = '{}' if f['ret'] == 'void' else '{ return {}; }'
        S.append(f['decl'][:-1] + ' ' + body)
    S += ['', '/* Not part of the API: must stay hidden under -fvisibility=hidden. */',
          'extern "C" int arun_visibility_probe_hidden(void) { return 0; }', '']
    files['visibility_stubs.cpp'] = '\n'.join(S) + '\n'

    # ---------------------------------------------------------------- deprecation probes
    probes = []
    for f in spec.functions:
        if f['deprecated']:
            probes.append((f['name'], f['deprecated'], '(void)&%s;' % f['name']))
    for e in spec.enums:
        for (n, val, d) in e['enumerators']:
            if d:
                probes.append((n, None, '(void)%s;' % n))
    P = [BANNER, '/* One use of a deprecated item per ARUN_PROBE value; compiled by the deprecation tests. */',
         '#include "acl/acl.h"', '#include "acl/acl_prof.h"', '#include "acl/acl_op_compiler.h"', '']
    for i, (n, msg, use) in enumerate(probes):
        P += ['#if ARUN_PROBE == %d' % i, 'void arun_probe(void);', 'void arun_probe(void) { %s }' % use, '#endif']
    files['deprecation_probe.c'] = '\n'.join(P) + '\n'
    M = ['# Generated by tools/gen_header_checks.py from the ACL API spec. Do not edit.',
         '# Deprecated items: index;name;expected message regex ("" = any message).',
         'set(ARUN_DEPRECATION_PROBES']
    for i, (n, msg, use) in enumerate(probes):
        rx = re.escape(msg).replace('\\ ', ' ') if msg else ''
        M.append('  "%d|%s|%s"' % (i, n, rx))
    M.append(')')
    files['deprecation_probes.cmake'] = '\n'.join(M) + '\n'

    # ---------------------------------------------------------------- absent names
    A = [BANNER, '/* Names that must not be declared (spec 2.14 and 3). Valid C and C++. */',
         '/* A file-scope variable of the same name collides with any function, type or enumerator. */']
    for n in spec.absent:
        A += ['#ifdef %s' % n, '#error "%s must not be defined"' % n, '#endif',
              'static int %s __attribute__((unused));' % n]
    files['absent_names.inc'] = '\n'.join(A) + '\n'

    # ---------------------------------------------------------------- inventory for --check-headers
    inv = OrderedDict()
    inv['enums'] = OrderedDict((e['name'] or e['tag'], [n for (n, _, _) in e['enumerators']]) for e in spec.enums)
    inv['functions'] = sorted(f['name'] for f in spec.functions)
    inv['macros'] = sorted([n for (_, n, _) in spec.macros + spec.string_macros] +
                           [n for (g, n, _) in spec.codes if g == 'rt'])
    inv['constants'] = sorted([n for (g, n, _) in spec.codes if g != 'rt'] +
                              [n for (_, _, n, _) in spec.static_consts])
    inv['typedefs'] = sorted(set([n for (_, n, _) in spec.typedefs] + [n for (_, n, _) in spec.fn_typedefs] +
                                 [s_['name'] for s_ in spec.structs if s_['name']] +
                                 [e['name'] for e in spec.enums if e['name']]))
    graph = OrderedDict((k, list(v)) for k, v in spec.graph.items() if k in HEADERS)
    for k, v in EXTRA_EDGES.items():
        graph[k] = graph.get(k, []) + v
    inv['includes'] = graph
    inv['std_includes'] = spec.std_includes
    files['inventory.json'] = json.dumps(inv, indent=1) + '\n'

    # ---------------------------------------------------------------- sources list
    srcs = ['# Generated by tools/gen_header_checks.py. Per-header check sources.',
            'set(ARUN_HEADER_ONLY_CXX_SOURCES']
    srcs += ['  ${CMAKE_CURRENT_LIST_DIR}/only_%s.cpp' % ident(h) for h in HEADERS]
    srcs += [')', 'set(ARUN_HEADER_ONLY_C_SOURCES']
    srcs += ['  ${CMAKE_CURRENT_LIST_DIR}/only_%s.c' % ident(h) for h in HEADERS]
    srcs.append(')')
    files['sources.cmake'] = '\n'.join(srcs) + '\n'

    os.makedirs(out, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(out, name), 'w', encoding='utf-8') as fh:
            fh.write(text)
    return counts


# --------------------------------------------------------------------------- header inventory

# Macros our headers define beyond the spec's value lists: portability macros and guards.
ALLOWED_EXTRA_MACROS = {'ACL_FUNC_VISIBILITY', 'ACL_DEPRECATED', 'ACL_DEPRECATED_MESSAGE', 'MSVP_PROF_API',
                        'GE_FUNC_VISIBILITY', 'ACL_PROF_TENSOR_INFO_DEFINED'}


def check_headers(include_dir, inventory_path):
    """Compare the names our headers declare, and their direct includes, with the inventory."""
    inv = json.load(open(inventory_path, encoding='utf-8'))
    # Spec part 2 (acl-api-runtime-2.md) families add their names in hand-kept files, one per family,
    # in part2/ next to generated/: {"enums": {name: [enumerators]}, "functions": [...], "typedefs": [...]}.
    part2 = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(inventory_path))), 'part2')
    if os.path.isdir(part2):
        for f in sorted(os.listdir(part2)):
            if not f.endswith('.json'):
                continue
            extra = json.load(open(os.path.join(part2, f), encoding='utf-8'))
            inv['enums'].update(extra.get('enums', {}))
            for key in ('functions', 'macros', 'constants', 'typedefs'):
                inv[key] = list(inv[key]) + [n for n in extra.get(key, []) if n not in inv[key]]
    texts = OrderedDict()
    for h in HEADERS:
        texts[h] = open(os.path.join(include_dir, h), encoding='utf-8').read()
    problems = []

    def compare(what, found, expected):
        found, expected = set(found), set(expected)
        for n in sorted(found - expected):
            problems.append('%s: %s is not in the spec' % (what, n))
        for n in sorted(expected - found):
            problems.append('%s: %s is missing' % (what, n))

    guards = set()
    enums, funcs, macros, consts, typedefs = OrderedDict(), [], [], [], []
    for h, raw in texts.items():
        text = strip_c_comments(raw)
        text = re.sub(r'\\\n', ' ', text)
        gm = re.search(r'#ifndef\s+(\w+)\s*\n\s*#define\s+\1\b', text)
        if not gm:
            problems.append('%s: no include guard' % h)
        else:
            guards.add(gm.group(1))
        if h == 'ge/ge_error_codes.h':
            continue   # same content as acl/error_codes/ge_error_codes.h (checked by ctest)
        nostr = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)   # deprecation messages contain commas
        for m in re.finditer(r'enum\s*(\w+)?\s*\{(.*?)\}\s*(\w+)?\s*;', nostr, re.S):
            names = [re.match(r'\s*(\w+)', item).group(1) for item in m.group(2).split(',') if item.strip()]
            key = (m.group(3) if nostr[max(0, m.start() - 8):m.start()].strip().endswith('typedef') else None) \
                or m.group(1)
            enums[key] = names
        funcs += re.findall(r'^(?:ACL_FUNC_VISIBILITY|MSVP_PROF_API)\s+[^;(]*?\b(\w+)\s*\(', text, re.M)
        macros += re.findall(r'^\s*#\s*define\s+(\w+)', text, re.M)
        consts += re.findall(r'^\s*static\s+const\s+\w+\s+(\w+)\s*=', text, re.M)
        for m in re.finditer(r'typedef\b', text):
            # the name is the last identifier before the terminating ';' at brace depth 0
            depth, k = 0, m.end()
            while k < len(text) and not (text[k] == ';' and depth == 0):
                depth += {'{': 1, '}': -1}.get(text[k], 0)
                k += 1
            decl = text[m.end():k]
            fp = re.search(r'\(\s*\*\s*(\w+)\s*\)\s*\(', decl)
            tail = decl[decl.rfind('}') + 1:] if '}' in decl else decl
            name = fp.group(1) if fp else re.findall(r'(\w+)', tail)[-1]
            typedefs.append(name)
        incs = re.findall(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', text, re.M)
        local = [('acl/' + p if not p.startswith('acl/') else p) for (q, p) in incs if q == '"']
        std = [p for (q, p) in incs if q == '<']
        if h in inv['includes'] and sorted(local) != sorted(inv['includes'][h]):
            problems.append('%s includes %s, spec graph says %s' % (h, sorted(local), sorted(inv['includes'][h])))
        if h in inv['std_includes'] and sorted(std) != sorted(inv['std_includes'][h]):
            problems.append('%s includes <%s>, spec graph says <%s>' % (h, sorted(std), sorted(inv['std_includes'][h])))
    compare('enum', enums.keys(), inv['enums'].keys())
    for k, names in enums.items():
        if k in inv['enums'] and names != inv['enums'][k]:
            problems.append('enum %s: enumerators %s, spec has %s' % (k, names, inv['enums'][k]))
    compare('function', funcs, inv['functions'])
    if len(funcs) != len(set(funcs)):
        problems.append('a function is declared twice')
    compare('macro', [m for m in macros if m not in guards and m not in ALLOWED_EXTRA_MACROS], inv['macros'])
    compare('constant', consts, inv['constants'])
    compare('typedef', typedefs, inv['typedefs'])
    for p in problems:
        print('header inventory: ' + p, file=sys.stderr)
    print('header inventory: %d enums, %d functions, %d macros, %d constants, %d typedefs, %d headers: %s'
          % (len(enums), len(funcs), len(macros), len(consts), len(typedefs), len(texts),
             'OK' if not problems else '%d problem(s)' % len(problems)))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--spec', default=DEFAULT_SPEC)
    ap.add_argument('--out', default=os.path.join(ROOT, 'tests', 'unit', 'headers', 'generated'))
    ap.add_argument('--check-headers', metavar='INCLUDE_DIR',
                    help='instead of generating: compare the headers under INCLUDE_DIR with the committed '
                         'inventory (generated/inventory.json in --out)')
    args = ap.parse_args()
    if args.check_headers:
        return check_headers(args.check_headers, os.path.join(args.out, 'inventory.json'))
    try:
        spec = Spec(args.spec)
        counts = gen(spec, args.out)
    except SpecError as e:
        print('gen_header_checks: ' + str(e), file=sys.stderr)
        return 1
    for k, n in counts.items():
        print('%-20s %d' % (k, n))
    return 0


if __name__ == '__main__':
    sys.exit(main())
