#!/usr/bin/env python3
# A strict parser of the Prometheus text exposition format 0.0.4, for the
# metrics tests: it refuses what a scraper would refuse and what promtool
# would lint (a counter without _total, a histogram whose buckets are not
# cumulative), so a test fails on any of it.
#
#   promparse.py FILE [QUERY...]   check FILE; print each QUERY's value:
#                                  the sum of the series that carry all
#                                  its labels, or "none" if none do
#   promparse.py --selftest        check the checker on good and bad input
#
# A QUERY is a metric name with optional labels: name{k="v",k2="v2"}.
import math
import re
import sys

NAME = re.compile(r'[a-zA-Z_:][a-zA-Z0-9_:]*')
LABEL = re.compile(r'[a-zA-Z_][a-zA-Z0-9_]*')
FLOAT = re.compile(r'[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?')
TYPES = ('counter', 'gauge', 'histogram', 'summary', 'untyped')


class ParseError(Exception):
    pass


def parse_value(s, where):
    if s in ('NaN', '+Inf', '-Inf'):
        return float(s.replace('Inf', 'inf').replace('NaN', 'nan'))
    if not FLOAT.fullmatch(s):
        raise ParseError('%s: value %r is not a float' % (where, s))
    return float(s)


def parse_labels(text, pos, where):
    """Labels from just after '{'; returns (dict, position after '}')."""
    labels = {}
    while True:
        if pos < len(text) and text[pos] == '}':
            return labels, pos + 1
        m = LABEL.match(text, pos)
        if not m:
            raise ParseError('%s: bad label name at column %d' % (where, pos + 1))
        name = m.group(0)
        if name.startswith('__'):
            raise ParseError('%s: label name %s is reserved' % (where, name))
        if name in labels:
            raise ParseError('%s: label %s twice' % (where, name))
        pos = m.end()
        if text[pos:pos + 2] != '="':
            raise ParseError('%s: expected =" after label %s' % (where, name))
        pos += 2
        value = []
        while True:
            if pos >= len(text):
                raise ParseError('%s: unterminated label value' % where)
            c = text[pos]
            if c == '\\':
                nxt = text[pos + 1:pos + 2]
                if nxt not in ('\\', '"', 'n'):
                    raise ParseError('%s: bad escape \\%s in label %s' % (where, nxt, name))
                value.append('\n' if nxt == 'n' else nxt)
                pos += 2
            elif c == '"':
                pos += 1
                break
            elif c == '\n':
                raise ParseError('%s: raw newline in label value' % where)
            else:
                value.append(c)
                pos += 1
        labels[name] = ''.join(value)
        if pos < len(text) and text[pos] == ',':
            pos += 1
            # A trailing comma before } is allowed by the format.
            continue
        if pos < len(text) and text[pos] == '}':
            return labels, pos + 1
        raise ParseError('%s: expected , or } after label %s' % (where, name))


def family_of(name, types):
    """The family a sample belongs to, given the TYPEs declared so far."""
    for suffix in ('_bucket', '_sum', '_count'):
        if name.endswith(suffix):
            base = name[:-len(suffix)]
            if types.get(base) in ('histogram', 'summary'):
                return base
    return name


def parse(text):
    """Check text strictly; return {family: {'type', 'help', 'samples'}}."""
    if text and not text.endswith('\n'):
        raise ParseError('the exposition does not end with a newline')
    families = {}
    types = {}
    done = set()		# families whose samples are over
    current = None
    series = set()
    for n, line in enumerate(text.split('\n')[:-1], 1):
        where = 'line %d' % n
        if line == '' or line.isspace():
            continue
        if line.startswith('#'):
            parts = line.split(None, 3)
            if len(parts) >= 2 and parts[1] in ('HELP', 'TYPE'):
                if len(parts) < 3 or not NAME.fullmatch(parts[2]):
                    raise ParseError('%s: %s without a valid metric name' % (where, parts[1]))
                fam = parts[2]
                f = families.setdefault(fam, {'type': None, 'help': None, 'samples': []})
                if fam in done or (f['samples'] and fam != current):
                    raise ParseError('%s: %s for %s after its samples' % (where, parts[1], fam))
                if f['samples']:
                    raise ParseError('%s: %s for %s after its first sample' % (where, parts[1], fam))
                if parts[1] == 'TYPE':
                    if f['type'] is not None:
                        raise ParseError('%s: second TYPE for %s' % (where, fam))
                    if len(parts) != 4 or parts[3] not in TYPES:
                        raise ParseError('%s: bad TYPE line' % where)
                    f['type'] = parts[3]
                    types[fam] = parts[3]
                else:
                    if f['help'] is not None:
                        raise ParseError('%s: second HELP for %s' % (where, fam))
                    doc = parts[3] if len(parts) == 4 else ''
                    if re.fullmatch(r'(?:[^\\]|\\[\\n])*', doc) is None:
                        raise ParseError('%s: bad escape in HELP' % where)
                    f['help'] = doc
                if current is not None and current != fam:
                    done.add(current)
                current = fam
            continue
        m = NAME.match(line)
        if not m:
            raise ParseError('%s: no metric name' % where)
        name = m.group(0)
        pos = m.end()
        labels = {}
        if pos < len(line) and line[pos] == '{':
            labels, pos = parse_labels(line, pos + 1, where)
        rest = line[pos:]
        if not rest.startswith(' '):
            raise ParseError('%s: expected a space before the value' % where)
        fields = rest.split()
        if len(fields) not in (1, 2):
            raise ParseError('%s: expected a value and at most a timestamp' % where)
        value = parse_value(fields[0], where)
        if len(fields) == 2 and not re.fullmatch(r'-?[0-9]+', fields[1]):
            raise ParseError('%s: bad timestamp' % where)
        fam = family_of(name, types)
        f = families.get(fam)
        if f is None or f['type'] is None:
            raise ParseError('%s: sample of %s without a TYPE before it' % (where, fam))
        if fam in done:
            raise ParseError('%s: samples of %s are not together' % (where, fam))
        if current is not None and current != fam:
            done.add(current)
        current = fam
        key = (name, tuple(sorted(labels.items())))
        if key in series:
            raise ParseError('%s: duplicate series %s%s' % (where, name, labels))
        series.add(key)
        t = f['type']
        if t == 'counter':
            if name != fam:
                raise ParseError('%s: sample %s in counter %s' % (where, name, fam))
            if value < 0 or math.isnan(value):
                raise ParseError('%s: counter %s is %s' % (where, name, fields[0]))
        elif t == 'gauge' or t == 'untyped':
            if name != fam:
                raise ParseError('%s: sample %s in %s %s' % (where, name, t, fam))
        elif t == 'histogram':
            if name == fam + '_bucket':
                if 'le' not in labels:
                    raise ParseError('%s: bucket without le' % where)
                parse_value(labels['le'], where + ' (le)')
            elif name in (fam + '_sum', fam + '_count'):
                if 'le' in labels:
                    raise ParseError('%s: le on %s' % (where, name))
            else:
                raise ParseError('%s: sample %s in histogram %s' % (where, name, fam))
        f['samples'].append((name, labels, value))
    for fam, f in families.items():
        if f['type'] is None:
            raise ParseError('%s: HELP without TYPE' % fam)
        if f['type'] == 'counter' and not fam.endswith('_total'):
            raise ParseError('counter %s does not end in _total' % fam)
        if f['type'] == 'histogram':
            check_histogram(fam, f['samples'])
    return families


def check_histogram(fam, samples):
    groups = {}
    for name, labels, value in samples:
        rest = tuple(sorted((k, v) for k, v in labels.items() if k != 'le'))
        g = groups.setdefault(rest, {'buckets': [], 'sum': None, 'count': None})
        if name.endswith('_bucket'):
            g['buckets'].append((parse_value(labels['le'], fam), value))
        elif name.endswith('_sum'):
            g['sum'] = value
        else:
            g['count'] = value
    for rest, g in groups.items():
        what = '%s%s' % (fam, dict(rest))
        if g['sum'] is None or g['count'] is None:
            raise ParseError('%s: no _sum or no _count' % what)
        b = g['buckets']
        if not b or b[-1][0] != math.inf:
            raise ParseError('%s: the last bucket is not le="+Inf"' % what)
        for i in range(1, len(b)):
            if b[i][0] <= b[i - 1][0]:
                raise ParseError('%s: le bounds not increasing' % what)
            if b[i][1] < b[i - 1][1]:
                raise ParseError('%s: buckets not cumulative' % what)
        if b[-1][1] != g['count']:
            raise ParseError('%s: +Inf bucket %s != _count %s' % (what, b[-1][1], g['count']))


def query(families, q):
    m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?', q)
    if not m:
        raise ParseError('bad query %r' % q)
    want = {}
    if m.group(2):
        want, _ = parse_labels(m.group(2) + '}', 0, 'query')
    name = m.group(1)
    total, found = 0.0, False
    for f in families.values():
        for sname, labels, value in f['samples']:
            if sname == name and all(labels.get(k) == v for k, v in want.items()):
                total += value
                found = True
    if not found:
        return 'none'
    if math.isnan(total) or math.isinf(total):
        return repr(total)
    return ('%d' % total) if total == int(total) else repr(total)


GOOD = '''# HELP a_total A counter.
# TYPE a_total counter
a_total{x="1"} 3
a_total{x="2"} 0
# TYPE g gauge
g -1.5e3
g{y="a\\\\b\\"c\\nd"} NaN
# HELP h_seconds A histogram.
# TYPE h_seconds histogram
h_seconds_bucket{le="0.1"} 1
h_seconds_bucket{le="1"} 2
h_seconds_bucket{le="+Inf"} 3
h_seconds_sum 4.5
h_seconds_count 3
'''

BAD = {
    'no TYPE': 'x 1\n',
    'counter without _total': '# TYPE c counter\nc 1\n',
    'TYPE twice': '# TYPE g gauge\n# TYPE g gauge\ng 1\n',
    'TYPE after sample': '# TYPE g gauge\ng 1\n# HELP g late\n',
    'duplicate series': '# TYPE g gauge\ng{a="1"} 1\ng{a="1"} 2\n',
    'split family': '# TYPE g gauge\ng 1\n# TYPE h gauge\nh 1\ng{a="2"} 1\n',
    'bad value': '# TYPE g gauge\ng one\n',
    'bad label name': '# TYPE g gauge\ng{1a="x"} 1\n',
    'bad escape': '# TYPE g gauge\ng{a="\\t"} 1\n',
    'unquoted label': '# TYPE g gauge\ng{a=x} 1\n',
    'no newline at end': '# TYPE g gauge\ng 1',
    'negative counter': '# TYPE c_total counter\nc_total -1\n',
    'bad metric name': '# TYPE g gauge\n1g 1\n',
    'histogram not cumulative': '# TYPE h histogram\nh_bucket{le="1"} 2\n'
        'h_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    'histogram without +Inf': '# TYPE h histogram\nh_bucket{le="1"} 1\n'
        'h_sum 1\nh_count 1\n',
    '+Inf != count': '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\n'
        'h_count 3\n',
    'le not increasing': '# TYPE h histogram\nh_bucket{le="2"} 1\n'
        'h_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
    'stray sample in gauge': '# TYPE g gauge\ng_sum 1\n',
}


def selftest():
    fams = parse(GOOD)
    assert query(fams, 'a_total') == '3', query(fams, 'a_total')
    assert query(fams, 'a_total{x="2"}') == '0'
    assert query(fams, 'g{y="a\\\\b\\"c\\nd"}') == 'nan'
    assert query(fams, 'h_seconds_count') == '3'
    assert query(fams, 'nope') == 'none'
    bad = 0
    for what, text in BAD.items():
        try:
            parse(text)
        except ParseError:
            continue
        print('FAIL: accepted: %s' % what)
        bad += 1
    if bad:
        return 1
    print('ok: promparse accepts good input and refuses %d kinds of bad' % len(BAD))
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == '--selftest':
        return selftest()
    if len(argv) < 2:
        print(__doc__ or 'usage: promparse.py FILE [QUERY...]', file=sys.stderr)
        return 2
    with open(argv[1], encoding='utf-8') as fp:
        text = fp.read()
    try:
        fams = parse(text)
        for q in argv[2:]:
            print(query(fams, q))
    except ParseError as e:
        print('promparse: %s: %s' % (argv[1], e), file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
