#!/usr/bin/env python3
"""The status page of chainwatch-metrics, read as a browser would not
need to guess it.

pagecheck.py lint PAGE
    Tags balance (void elements aside), nothing refers to another host
    (no http:// or https:// in an attribute, no script, no stylesheet,
    no url() or @import in CSS), and the page has a viewport and a
    refresh.
pagecheck.py standings PAGE CHAIN
    Prints the standings tables of CHAIN as JSON: {window: {"blocks",
    "hashrate", "rows": [{"miner", "blocks", "share", "hashrate"}]}},
    and the chain's status.
"""
import json
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input",
        "link", "meta", "source", "track", "wbr"}


class Lint(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.metas = [], [], []
        self.style = ""
        self.in_style = False

    def where(self):
        return "line %d" % self.getpos()[0]

    def handle_starttag(self, tag, attrs):
        self.check_attrs(tag, attrs)
        if tag == "meta":
            self.metas.append(dict(attrs))
        if tag in ("script", "iframe", "object", "embed", "link", "img"):
            self.errors.append("%s: <%s> on the page" % (self.where(), tag))
        if tag not in VOID:
            self.stack.append((tag, self.where()))
        self.in_style = tag == "style"

    def handle_startendtag(self, tag, attrs):
        self.check_attrs(tag, attrs)
        if tag == "meta":
            self.metas.append(dict(attrs))

    def handle_endtag(self, tag):
        self.in_style = False
        if tag in VOID:
            self.errors.append("%s: </%s> of a void element" %
                               (self.where(), tag))
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append("%s: </%s> closes %s" % (self.where(), tag,
                               self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()

    def handle_data(self, data):
        if self.in_style:
            self.style += data

    def check_attrs(self, tag, attrs):
        for k, v in attrs:
            if v and re.search(r"https?:|//", v, re.I) and k != "content":
                self.errors.append("%s: <%s %s=%r>: refers elsewhere" %
                                   (self.where(), tag, k, v))
            if k.startswith("on"):
                self.errors.append("%s: <%s %s>: an event handler" %
                                   (self.where(), tag, k))
            if k in ("href", "src", "xlink:href", "action") and v and \
                    (re.match(r"^[a-z]+:", v) or v.startswith("//")):
                self.errors.append("%s: <%s %s=%r>: not on this server" %
                                   (self.where(), tag, k, v))


def lint(path):
    text = open(path, encoding="utf-8").read()
    p = Lint()
    p.feed(text)
    p.close()
    errors = p.errors
    if p.stack:
        errors.append("unclosed: %s" % p.stack)
    if not text.startswith("<!DOCTYPE html>"):
        errors.append("no <!DOCTYPE html>")
    if re.search(r"url\s*\(|@import", p.style, re.I):
        errors.append("the stylesheet loads something")
    if not any(m.get("name") == "viewport" and
               "width=device-width" in m.get("content", "")
               for m in p.metas):
        errors.append("no viewport meta")
    if not any(m.get("http-equiv", "").lower() == "refresh" and
               m.get("content", "").strip().isdigit() for m in p.metas):
        errors.append("no meta refresh")
    for e in errors:
        print("%s: %s" % (path, e), file=sys.stderr)
    return 1 if errors else 0


class Standings(HTMLParser):
    def __init__(self, chain):
        super().__init__(convert_charrefs=True)
        self.chain, self.out, self.status = chain, {}, None
        self.in_chain = False
        self.table = self.row = self.cell = None
        self.text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "section" and "chain" in cls:
            self.in_chain = a.get("data-chain") == self.chain
        if not self.in_chain:
            return
        if tag == "span" and "status" in cls:
            self.status = a.get("data-status")
        if tag == "table" and "standings" in cls:
            self.table = self.out.setdefault(a["data-window"], dict(
                blocks=int(a["data-blocks"]),
                unsealed=int(a.get("data-unsealed") or 0),
                hashrate=float(a["data-hashrate"]) if a["data-hashrate"]
                else None, rows=[]))
        elif tag == "tr" and self.table is not None:
            self.row = {}
        elif tag == "td" and self.row is not None:
            self.cell = cls
            self.text = ""
            if "miner" in cls:
                self.row["miner"] = a["title"]
            if "hashrate" in cls:
                self.row["hashrate"] = float(a["data-hps"]) \
                    if a["data-hps"] else None

    def handle_data(self, data):
        if self.cell is not None:
            self.text += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            if "blocks" in self.cell:
                self.row["blocks"] = int(self.text)
            if "share" in self.cell:
                self.row["share"] = self.text
            self.cell = None
        elif tag == "tr" and self.row:
            self.table["rows"].append(self.row)
            self.row = None
        elif tag == "table":
            self.table = None
        elif tag == "section":
            self.in_chain = False


def standings(path, chain):
    p = Standings(chain)
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    print(json.dumps(dict(status=p.status, windows=p.out), indent=1))
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["lint"] and len(sys.argv) == 3:
        sys.exit(lint(sys.argv[2]))
    if sys.argv[1:2] == ["standings"] and len(sys.argv) == 4:
        sys.exit(standings(sys.argv[2], sys.argv[3]))
    sys.exit(__doc__)
