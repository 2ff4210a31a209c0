#!/usr/bin/env python3
# A promtool unit test of the alert rules on a real scrape: every sample
# of SCRAPE held for 40 minutes, then each alert of RULES must be firing
# with exactly the labels given, or not at all.  The rules are copied to
# DIR without their annotations, which are text for people: what is
# tested is each expression, its "for" and its labels, on the series and
# label sets that chainwatch-metrics really exports.
#
#   alerts_live.py RULES SCRAPE DIR [ALERT:label=value,label=value ...]
# writes DIR/rules.yml and DIR/test.yml, for "promtool test rules".
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import promparse  # noqa: E402

MINUTES = 40


def series(text):
    out = []
    for fam in promparse.parse(text).values():
        for name, labels, value in fam['samples']:
            sel = ','.join('%s="%s"' % (k, v.replace('\\', '\\\\').replace('"', '\\"'))
                           for k, v in sorted(labels.items()))
            out.append({'series': '%s{%s}' % (name, sel),
                        'values': '%s+0x%d' % (repr(value), MINUTES)})
    return out


def expected(args):
    want = {}
    for a in args:
        name, _, spec = a.partition(':')
        labels = dict(kv.split('=', 1) for kv in spec.split(',') if kv)
        want.setdefault(name, []).append({'exp_labels': labels})
    return want


def main(argv):
    if len(argv) < 4:
        print('usage: alerts_live.py RULES SCRAPE DIR [ALERT:l=v,...]...', file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        rules = yaml.safe_load(f)
    with open(argv[2]) as f:
        scrape = f.read()
    want = expected(argv[4:])
    names = []
    for g in rules['groups']:
        for r in g['rules']:
            r.pop('annotations', None)
            names.append(r['alert'])
    unknown = set(want) - set(names)
    if unknown:
        print('alerts_live.py: no such alert: %s' % ', '.join(sorted(unknown)), file=sys.stderr)
        return 2
    test = {
        'rule_files': ['rules.yml'],
        'evaluation_interval': '1m',
        'tests': [{
            'interval': '1m',
            'input_series': series(scrape),
            'alert_rule_test': [{'eval_time': '%dm' % MINUTES, 'alertname': n,
                                 'exp_alerts': want.get(n, [])} for n in names],
        }],
    }
    with open(os.path.join(argv[3], 'rules.yml'), 'w') as f:
        yaml.safe_dump(rules, f, sort_keys=False)
    with open(os.path.join(argv[3], 'test.yml'), 'w') as f:
        yaml.safe_dump(test, f, sort_keys=False)
    print('%d series, %d alerts, %d expected firing' % (
        len(test['tests'][0]['input_series']), len(names),
        sum(len(v) for v in want.values())))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
