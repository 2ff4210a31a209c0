#!/usr/bin/env python3
# Cross-check the Prometheus alert rules and the Grafana dashboard against
# a scrape of chainwatch-metrics: every metric an expression names must be
# in the scrape, every label it matches on must be on that metric, and
# every fixed value it matches (state="open", outcome=~"a|b") must occur.
# Names that are not metrics (functions, keywords, label lists) are
# told apart by PromQL's grammar; any other name fails, so an expression
# cannot lean on a metric chainwatch does not export.
#
#   promnames.py SCRAPE RULES.yml DASHBOARD.json
#   promnames.py --selftest
import json
import os
import re
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import promparse  # noqa: E402

KEYWORDS = {'and', 'or', 'unless', 'by', 'without', 'on', 'ignoring',
            'group_left', 'group_right', 'offset', 'bool', 'inf', 'nan'}
# Labels whose values are the operator's (configuration, Prometheus),
# not chainwatch's vocabulary.
FREE_LABELS = {'chain', 'endpoint', 'instance', 'job'}
STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
SELECTOR = re.compile(r'([a-zA-Z_:][a-zA-Z0-9_:]*)\s*\{([^}]*)\}')
MATCHER = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?')
TOKEN = re.compile(r'[0-9][0-9a-zA-Z_.]*|[a-zA-Z_:][a-zA-Z0-9_:]*')


class Error(Exception):
    pass


def scrape_index(text):
    """{sample name: {label: set(values)}} from an exposition."""
    index = {}
    for fam, f in promparse.parse(text).items():
        for name, labels, _ in f['samples']:
            d = index.setdefault(name, {})
            for k, v in labels.items():
                d.setdefault(k, set()).add(v)
    return index


def matchers(body, where):
    out = []
    pos = 0
    while pos < len(body.rstrip()):
        m = MATCHER.match(body, pos)
        if not m:
            raise Error('%s: cannot read the matchers {%s}' % (where, body))
        out.append((m.group(1), m.group(2), m.group(3)))
        pos = m.end()
    return out


def check_value(metric, label, op, value, index, where):
    if label in FREE_LABELS or '$' in value:
        return
    seen = index[metric].get(label, set())
    if op in ('=~', '!~'):
        alts = value.split('|')
        if not all(re.fullmatch(r'[a-zA-Z0-9_.+-]+', a) for a in alts):
            return		# a real pattern: nothing fixed to check
    else:
        alts = [value]
    for a in alts:
        if a not in seen:
            raise Error('%s: %s{%s%s"%s"}: %s is never a value of %s '
                        '(the scrape has %s)' % (where, metric, label, op,
                                                 value, a, label,
                                                 ', '.join(sorted(seen))))


def names(expr, index, where):
    """The metric names expr uses, each checked against index."""
    used = set()
    for m in SELECTOR.finditer(expr):
        metric = m.group(1)
        if metric not in index:
            raise Error('%s: %s is not in the scrape' % (where, metric))
        for label, op, value in matchers(m.group(2), where):
            if label not in index[metric]:
                raise Error('%s: %s has no label %s (it has %s)' % (
                    where, metric, label, ', '.join(sorted(index[metric]))))
            check_value(metric, label, op, value, index, where)
        used.add(metric)
    # What is left once selectors' matchers, strings, ranges and label
    # lists are gone: every name is a function, a keyword or a metric.
    rest = SELECTOR.sub(lambda m: m.group(1), expr)
    rest = STRING.sub(' ', rest)
    rest = re.sub(r'\[[^\]]*\]', ' ', rest)
    rest = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)',
                  ' ', rest)
    for m in TOKEN.finditer(rest):
        tok = m.group(0)
        if tok[0].isdigit() or tok.lower() in KEYWORDS:
            continue
        if rest[m.end():].lstrip().startswith('('):
            continue	# a function or an aggregation
        if tok not in index:
            raise Error('%s: %s is not in the scrape' % (where, tok))
        used.add(tok)
    if not used:
        raise Error('%s: names no chainwatch metric: %s' % (where, expr))
    return used


def rule_exprs(path):
    with open(path) as f:
        doc = yaml.safe_load(f)
    for g in doc['groups']:
        for r in g['rules']:
            yield '%s: %s' % (path, r.get('alert') or r.get('record')), r['expr']


def dashboard_exprs(path):
    with open(path) as f:
        doc = json.load(f)

    for k in ('uid', 'title', 'panels', 'templating'):
        if not doc.get(k):
            raise Error('%s: no %s' % (path, k))
    ids = set()

    def walk(panels):
        for p in panels:
            if p.get('id') in ids:
                raise Error('%s: panel id %s twice' % (path, p.get('id')))
            ids.add(p.get('id'))
            yield from walk(p.get('panels', []))
            if p['type'] != 'row' and not p.get('targets'):
                raise Error('%s: panel "%s" has no query' % (path, p['title']))
            for t in p.get('targets', []):
                yield ('%s: panel "%s" %s' % (path, p['title'], t['refId']),
                       t['expr'])
    yield from walk(doc['panels'])
    for v in doc['templating']['list']:
        if v['type'] != 'query':
            continue
        q = v['query']['query'] if isinstance(v['query'], dict) else v['query']
        m = re.fullmatch(r'label_values\((.*),\s*([a-zA-Z_]+)\)', q)
        if not m:
            raise Error('%s: variable %s: not label_values(METRIC, LABEL): %s'
                        % (path, v['name'], q))
        yield ('%s: variable %s' % (path, v['name']), m.group(1),
               m.group(2))


def check(scrape, rules, dashboard):
    index = scrape_index(scrape)
    used = set()
    n = 0
    for item in list(rule_exprs(rules)) + list(dashboard_exprs(dashboard)):
        where, expr = item[0], item[1]
        got = names(expr, index, where)
        if len(item) == 3:
            for metric in got:
                if item[2] not in index[metric]:
                    raise Error('%s: %s has no label %s' % (where, metric, item[2]))
        used |= got
        n += 1
    return n, used


GOOD = '''# HELP m_up Up.
# TYPE m_up gauge
m_up 1
# HELP m_state State.
# TYPE m_state gauge
m_state{chain="c",state="open"} 1
m_state{chain="c",state="closed"} 0
'''


def selftest():
    idx = scrape_index(GOOD)
    cases = [
        ('m_up == 0', True),
        ('sum by (chain) (m_state{state=~"open|closed"}) == 1', True),
        ('rate(m_state{chain=~"$chain"}[5m]) > 1 and m_up offset 15m', True),
        ('up == 0', False),				# not chainwatch's
        ('m_nope > 1', False),				# not exported
        ('m_state{state="half-open"} == 1', False),	# no such value
        ('m_state{status="ok"} == 1', False),		# no such label
        ('m_up + other_metric', False),
        ('vector(1)', False),				# names no metric
    ]
    for expr, good in cases:
        try:
            names(expr, idx, 'selftest')
            ok = True
        except Error:
            ok = False
        if ok != good:
            print('selftest: %r was %s' % (expr, 'accepted' if ok else 'refused'))
            return 1
    print('selftest: %d cases' % len(cases))
    return 0


def main(argv):
    if argv[1:] == ['--selftest']:
        return selftest()
    if len(argv) != 4:
        print('usage: promnames.py SCRAPE RULES.yml DASHBOARD.json', file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        scrape = f.read()
    try:
        n, used = check(scrape, argv[2], argv[3])
    except (Error, promparse.ParseError) as e:
        print('promnames: %s' % e, file=sys.stderr)
        return 1
    print('%d expressions, %d metrics: %s' % (n, len(used), ' '.join(sorted(used))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
