#!/usr/bin/python3
# The arithmetic of bench/soak.sh (python3 standard library only): the
# seeded schedule of faults it runs, and the judgement of its samples at
# the end (bounds, least-squares slopes, summary table, SVG chart).
#   soak.py schedule SEED SECONDS [FAULT_SECONDS]
#       one fault a line: KIND TARGET ARG HOLD GAP
#   soak.py judge DIR SECONDS INTERVAL [judged|asan]
#       reads DIR/samples.csv, faults.csv, end.txt (asan: memory not judged)
#       -> the summary on stdout (last line soak: PASS or soak: FAIL: why),
#          DIR/chart.svg; exit 1 on FAIL
import csv
import math
import random
import sys

# Every fault the soak brings, one per deck; a deck is shuffled and dealt
# whole before the next, so a run long enough for one deck has them all.
# TARGET d = a devnode, e = an endpoint (its worker), - = none.
DEVNODE_FAULTS = [
    "blackhole", "refuse", "http_503@http", "slow:1500", "rate_limit",
    "malformed", "truncated", "oversized:16", "ws_drop@ws", "ws_silent@ws",
    "stall", "lag:40", "wrong_genesis", "batch_limit:4",
    # the lies
    "split", "forge_head", "forge_chain:64", "bad_number:50",
    "finalized_off", "wrong_header", "wrong_count:0", "wrong_count:1",
    "wrong_count:2",
]
PROCESS_FAULTS = [
    ("kill_worker", "e"), ("kill_daemon", "-"), ("stop_worker", "e"),
    ("stop_devnode", "d"), ("hup_endpoint", "-"), ("hup_endpoint", "-"),
    ("hup_change", "e"), ("write_lock", "-"), ("disk_full", "-"),
]


# A deck's longest time at hold h: the cards of a fixed hold (the write
# lock's 10 s, five of at most 3 s) and the others' 2h, each with a gap
# of at most h, and half a second a card of the soak's own work (a
# control call, a signal, a restart waited for).
FIXED_CARDS = 6
OWN_S = 0.5


def holds(seconds, faulting=None):
    """The base hold h of a fault for a run of that many seconds: a fault
    lasts h to 2h, and the quiet after it h/2 to h.  2 to 15 s, less
    (down to 1 s) when a whole deck would not fit in the faulting
    seconds otherwise: a short run brings every kind too."""
    h = max(2.0, min(15.0, seconds / 100.0))
    if faulting is not None:
        cards = len(DEVNODE_FAULTS) + len(PROCESS_FAULTS)
        fixed = 10 + 5 * 3 + OWN_S * cards
        fit = (faulting - fixed) / (2 * (cards - FIXED_CARDS) + cards)
        h = max(1.0, min(h, fit))
    return h


def schedule(seed, seconds, faulting=None):
    rng = random.Random("soak:%s" % seed)
    h = holds(seconds, faulting)
    deck = [("fault", "d", f) for f in DEVNODE_FAULTS] + \
        [(k, t, "-") for k, t in PROCESS_FAULTS]
    out = []
    # Enough for any run: the shell stops dealing when its time is up.
    total = 0.0
    while total < seconds:
        cards = deck[:]
        rng.shuffle(cards)
        for kind, target, arg in cards:
            if target == "d":
                tgt = "d%d" % rng.randint(1, 3)
            elif target == "e":
                tgt = "e%d" % rng.randint(1, 3)
            else:
                tgt = "-"
            hold = round(rng.uniform(h, 2 * h), 1)
            if kind == "write_lock":
                hold = 10.0
            elif kind in ("kill_worker", "hup_endpoint", "hup_change"):
                hold = round(rng.uniform(1, 3), 1)
            elif kind == "kill_daemon":
                hold = round(rng.uniform(1, 3), 1)	# down before restart
            gap = round(rng.uniform(h / 2, h), 1)
            out.append("%s %s %s %s %s" % (kind, tgt, arg, hold, gap))
            total += hold + gap
    return out


ROLES = ["sup", "e1", "e2", "e3", "e4", "metrics"]
MEASURES = [("rss_kb", "RSS", "KB"), ("anon_kb", "anon", "KB"),
            ("heap_kb", "heap", "KB"),
            ("pss_kb", "PSS", "KB"), ("fds", "fds", ""),
            ("threads", "threads", "")]
WAL_BOUND_KB = 64 * 1024	# the WAL is cut back to 64 MB; backfill waits there
# The most each process's SQLite page cache holds: the supervisor's
# default store_cache (soak.sh sets 1M, so that its cache is full within
# minutes of each start, and the supervisor says what it holds; this is
# for CSVs of before it did), SQLite's default for the metrics server,
# which sets none.
CACHE_KB = {"sup": 64 * 1024, "metrics": 2000}
SAMPLE_MS = 3000
SETTLE_MS = 60000		# the queue and lag are back within a minute


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def t_quantile(df, p=0.975):
    """Student's t quantile (Cornish-Fisher expansion around the normal):
    within 1 % of the table from df 3 on."""
    from statistics import NormalDist
    z = NormalDist().inv_cdf(p)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / df + g2 / df ** 2 + g3 / df ** 3


def slope(points, independent=False):
    """The least-squares slope of value against time within each process's
    life, pooled (one intercept per pid, one slope): a leak grows each
    process, whatever restarts did.  points: (t, pid, value).

    Samples 10 s apart are not independent: a burst (a backlog fetched, a
    window's answer built) lifts several in a row, so the residuals of
    the fit are autocorrelated and the textbook interval, which assumes
    they are not, is too narrow by sqrt((1 + r) / (1 - r)) (r: their
    lag-1 correlation, within each process's life).  The interval is
    widened by that factor and its degrees of freedom cut to the
    effective number of samples, n (1 - r) / (1 + r); r below 0 is
    taken as 0 (never narrower than the textbook's).

    Returns (slope per s, half width of its 95 % interval, n, processes,
    span, r) or None when there is too little to fit.  independent: the
    textbook interval (r taken as 0), for comparison."""
    segs = {}
    for t, pid, v in points:
        segs.setdefault(pid, []).append((t, v))
    sxx = sxy = syy = 0.0
    n = k = 0
    lo, hi = None, None
    lives = []			# each life's (t - its mean, v - its mean)
    for pts in segs.values():
        if len(pts) < 2:
            continue
        tb = sum(t for t, _ in pts) / len(pts)
        yb = sum(v for _, v in pts) / len(pts)
        lives.append([(t - tb, v - yb) for t, v in pts])
        for dt, dv in lives[-1]:
            sxx += dt ** 2
            sxy += dt * dv
            syy += dv ** 2
        n += len(pts)
        k += 1
        lo = min(pts[0][0], lo if lo is not None else pts[0][0])
        hi = max(pts[-1][0], hi if hi is not None else pts[-1][0])
    if k == 0 or n - k - 1 < 2 or sxx == 0:
        return None
    b = sxy / sxx
    sse = max(syy - b * sxy, 0.0)
    r = 0.0
    if not independent:
        # The residuals' lag-1 correlation, pair by pair within each life.
        c0 = c1 = 0.0
        for life in lives:
            res = [dv - b * dt for dt, dv in life]
            c0 += sum(e * e for e in res)
            c1 += sum(res[i] * res[i - 1] for i in range(1, len(res)))
        r = c1 / c0 if c0 > 0 else 0.0
        # Within short lives r is biased low, by about (1 + 3 r) / m for
        # lives of m samples (Marriott and Pope): added back.
        r = min(max(r + (1 + 3 * r) / (n / k), 0.0), 0.99)
    df = n * (1 - r) / (1 + r) - k - 1
    if df < 2:
        return None
    se = math.sqrt(sse / (n - k - 1) / sxx * (1 + r) / (1 - r))
    return b, t_quantile(df) * se, n, k, hi - lo, r


def trend(b, ci, rise, tol):
    """1 if a fitted slope b (+- ci) says the series grows, -1 falls, 0
    flat: its interval holds 0, or its rise over the window is within
    tol."""
    if b - ci <= 0 <= b + ci or abs(rise) <= tol:
        return 0
    return 1 if b > 0 else -1


def selftest(seed=28, leak=1500.0):
    """The judgement on made-up series whose truth is known: workers'
    heap as the hour shows it (lives of 5-17 minutes, a level near 450
    KB, noise that lasts (lag-1 correlation 0.8) and bursts that take a
    few samples to fall back).  Without a trend, the 95 % interval must
    miss 0 in at most 10 % of the runs (the textbook interval, printed
    beside it, misses it far more often on such noise); with a leak of
    1.5 MB an hour, the verdict must be "grows" in 90 % of them at
    least.  Returns 0 if both hold."""
    rng = random.Random(seed)

    def series(leak_kb_h):
        pts, t, life = [], 600.0, 0
        while t < 3600.0:
            life += 1
            end = min(t + rng.uniform(300.0, 1000.0), 3600.0)
            e = burst = 0.0
            while t < end:
                e = 0.8 * e + rng.gauss(0.0, 30.0)
                burst = burst * 0.5 + (rng.uniform(150.0, 450.0)
                                       if rng.random() < 0.03 else 0.0)
                pts.append((t, life, 450.0 + e + burst +
                            leak_kb_h * t / 3600.0))
                t += 10.0
        return pts

    runs = 200
    miss = miss_textbook = grows = 0
    for _ in range(runs):
        pts = series(0.0)
        b, ci = slope(pts)[:2]
        miss += not (b - ci <= 0 <= b + ci)
        b, ci = slope(pts, independent=True)[:2]
        miss_textbook += not (b - ci <= 0 <= b + ci)
    for _ in range(runs):
        pts = series(leak)
        b, ci, n, k, span, r = slope(pts)
        mean = sum(v for _, _, v in pts) / len(pts)
        grows += trend(b, ci, b * span, max(0.05 * mean, 256.0)) == 1
    print("no trend: the 95 %% interval misses 0 in %d of %d runs (%d with "
          "the textbook interval)" % (miss, runs, miss_textbook))
    print("a leak of %g KB/h: judged growing in %d of %d runs"
          % (leak, grows, runs))
    ok = miss <= runs // 10 and grows >= runs * 9 // 10
    print("selftest: %s" % ("ok" if ok else "FAIL"))
    return 0 if ok else 1


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def judge(d, secs, interval, memory="judged"):
    samples = read_csv(d + "/samples.csv")
    faults = read_csv(d + "/faults.csv")
    fails = []
    lines = []
    iv = [(int(f["start_ms"]), int(f["end_ms"]), f) for f in faults]
    first_fault = min([a for a, _, _ in iv], default=None)

    # A sample takes up to a few seconds after its epoch_ms: a fault
    # that began meanwhile is in it.
    def near_fault(ms, after, kinds=None):
        return any(a <= ms + SAMPLE_MS and ms <= e + after for a, e, f in iv
                   if kinds is None or f["kind"] in kinds)

    # --- what the end found
    lines.append("end of the run:")
    with open(d + "/end.txt") as f:
        for line in f:
            key, rc, *rest = line.split(" ", 2) + [""]
            rest = " ".join(rest).strip()
            ok = rc.strip() == "0"
            lines.append("  %-4s %-12s %s %s" % ("ok" if ok else "FAIL", key,
                                                rc.strip(), rest))
            if not ok:
                fails.append("%s: %s %s" % (key, rc.strip(), rest))

    # --- the bounds, sample by sample
    base = [s for s in samples
            if first_fault is None or int(s["epoch_ms"]) < first_fault]
    bq = [num(s["queue_rows"]) for s in base if num(s["queue_rows"]) is not None]
    bl = [num(s["lag"]) for s in base if num(s["lag"]) is not None]
    normal_q = (max(bq) if bq else 0) + 8
    normal_lag = max(max(bl) if bl else 0, 0) + 8
    broken = []
    for s in samples:
        ms = int(s["epoch_ms"])
        t = s["t"]
        q, lag, wal = num(s["queue_rows"]), num(s["lag"]), num(s["wal_kb"])
        if wal is not None and wal > WAL_BOUND_KB:
            broken.append("t=%s s: WAL %d KB over %d KB" % (t, wal, WAL_BOUND_KB))
        settling = near_fault(ms, SETTLE_MS)
        if q is not None and q > normal_q and not settling:
            broken.append("t=%s s: %d queue rows (normal <= %d) a minute "
                          "after the last fault" % (t, q, normal_q))
        if lag is not None and lag > normal_lag and not settling:
            broken.append("t=%s s: lag %d blocks (normal <= %d) a minute "
                          "after the last fault" % (t, lag, normal_lag))
        if not s["sup_pid"] and not near_fault(ms, 5000, ("kill_daemon",)):
            broken.append("t=%s s: chainwatchd not running" % t)
        if s["sup_pid"]:
            for e in ("e1", "e2", "e3"):
                if not s[e + "_pid"] and not settling:
                    broken.append("t=%s s: no worker for %s" % (t, e))
        o = num(s["orphans"])
        if o and not near_fault(ms, 15000, ("kill_daemon",)):
            broken.append("t=%s s: %d processes of a dead daemon left" % (t, o))
    lines.append("bounds over %d samples: WAL <= %d MB; queue <= %d rows and "
                 "lag <= %d blocks within %d s of every fault's end"
                 % (len(samples), WAL_BOUND_KB // 1024, normal_q, normal_lag,
                    SETTLE_MS // 1000))
    mx = lambda k: max([num(s[k]) for s in samples if num(s[k]) is not None],
                       default=0)
    lines.append("  most seen: WAL %.1f MB, queue %d rows, lag %d blocks; "
                 "store %.1f MB at the end"
                 % (mx("wal_kb") / 1024, mx("queue_rows"), mx("lag"),
                    (num(samples[-1]["store_kb"]) or 0) / 1024))
    for b in broken[:20]:
        lines.append("  FAIL " + b)
    if len(broken) > 20:
        lines.append("  ... %d more" % (len(broken) - 20))
    if broken:
        fails.append("%d samples broke a bound" % len(broken))

    # --- slopes
    skip = min(600.0, 0.2 * secs)
    warm = 120.0
    lines.append("slopes after the first %d s, of processes %d s old or more "
                 "(95 %% interval, widened by the lag-1 correlation r1 of "
                 "the residuals; flat: the interval holds 0, or the fitted "
                 "rise over the window is within the tolerance):"
                 % (skip, warm))
    lines.append("  %-18s %5s %4s %14s %14s %10s %5s %10s  %s"
                 % ("series", "n", "pids", "mean", "slope/h", "+-95%/h",
                    "r1", "rise", "verdict"))
    first_seen = {}
    for s in samples:
        for r in ROLES:
            p = s[r + "_pid"]
            if p and (r, p) not in first_seen:
                first_seen[(r, p)] = float(s["t"])
    for r in ROLES:
        for key, name, unit in MEASURES:
            pts = []
            # A SQLite page cache keeps every page read or written until
            # it is full: the memory of the supervisor (store_cache, 1 MB
            # here) and of the metrics server (2 MB) grows with the store by
            # design.  Judged is their memory less their cache: the
            # supervisor's as it says (sup_cache_kb, from
            # chainwatch_store_cache_bytes), the metrics server's as it
            # says (metrics_cache_kb, chainwatch_metrics_cache_bytes; in
            # a CSV of before, the store's size up to its 2 MB, which
            # overstates a cache that holds only what it read); what is
            # left must be flat.  (The store's size for the supervisor too made a
            # cache warming again after each restart look like growth.)
            # Descriptors likewise: a worker keeps up to max_inflight + 1
            # keep-alive connections, the metrics server its clients',
            # the supervisor one socket a child.  Judged are those that
            # are not an established TCP connection nor a child's.
            cache = r in CACHE_KB and unit == "KB"
            # Each says its cache (a CSV of before that did not: the
            # store's size stands for it).
            said = bool(samples) and r + "_cache_kb" in samples[0]
            for s in samples:
                p, v, t = s[r + "_pid"], num(s.get(r + "_" + key)), \
                    float(s["t"])
                if cache and v is not None:
                    st = num(s["store_kb"])
                    held = num(s[r + "_cache_kb"]) if said else \
                        None if st is None else min(st, CACHE_KB[r])
                    v = None if held is None else v - held
                if key == "fds" and v is not None:
                    tcp = num(s.get(r + "_tcp"))
                    kids = num(s.get("sup_children")) if r == "sup" else 0
                    v = None if tcp is None or kids is None else v - tcp - kids
                if p and v is not None and t >= skip and \
                        t - first_seen[(r, p)] >= warm:
                    pts.append((t, p, v))
            fit = slope(pts)
            label = "%s %s%s" % (r, name, ("-cache" if said else
                                           "-store") if cache else
                                 "-tcp-kids" if key == "fds" and r == "sup"
                                 else "-tcp" if key == "fds" else "")
            if fit is None:
                if r != "e4":
                    lines.append("  %-18s %5d %4s %14s %14s %10s %5s %10s  %s"
                                 % (label, len(pts), "-", "-", "-", "-", "-",
                                    "-", "too few samples"))
                continue
            b, ci, n, k, span, r1 = fit
            mean = sum(v for _, _, v in pts) / len(pts)
            rise = b * span
            if unit == "KB":
                tol = max(0.05 * abs(mean), 256.0)
            elif key == "fds":
                tol = 2.0
            else:
                tol = 0.5
            if unit == "KB" and memory == "asan":
                verdict = "not judged (ASan's quarantine)"
            elif key == "pss_kb":
                # PSS divides each shared page among the processes that
                # map it: another program on the machine that maps the
                # same libraries changes it.  Shown, not judged.
                verdict = "(not judged)"
            elif trend(b, ci, rise, tol) == 0:
                verdict = "flat"
            elif b > 0:
                verdict = "GROWS (tolerance %g)" % tol
                fails.append("%s grows %.1f%s/h" % (label, b * 3600, unit))
            else:
                verdict = "falls"
            lines.append("  %-18s %5d %4d %11.1f%3s %11.1f%3s %10.1f %5.2f "
                         "%10.1f  %s"
                         % (label, n, k, mean, unit, b * 3600, unit, ci * 3600,
                            r1, rise, verdict))

    # --- CPU, for the record
    cpu = cpu_rates(samples)
    late = [c for t, c in cpu if t >= skip]
    if late:
        lines.append("chainwatchd CPU after %d s: mean %.1f %% of a core, "
                     "most %.1f %%" % (skip, sum(late) / len(late), max(late)))

    # --- faults
    kinds = {}
    for f in faults:
        k = f["kind"] if f["kind"] != "fault" else f["arg"]
        kinds[k] = kinds.get(k, 0) + 1
    lines.append("%d faults, %d kinds: %s" % (
        len(faults), len(kinds),
        ", ".join("%s x%d" % (k, v) for k, v in sorted(kinds.items()))))
    allk = set(f for f in DEVNODE_FAULTS) | set(k for k, _ in PROCESS_FAULTS)
    missing = sorted(allk - set(kinds))
    if missing:
        lines.append("  not dealt in this run: " + ", ".join(missing))
    # What did not take: a devnode that refused, no worker to signal,
    # no write lock, the disk-full fault skipped.
    for f in faults:
        n = f["note"]
        if n.startswith(("skipped", "devnode", "no worker", "sqlite3 had",
                         "no reload")):
            lines.append("  not applied: %s %s %s: %s"
                         % (f["kind"], f["target"], f["arg"], n))

    chart(d, samples, iv, skip)
    lines.append("chart: %s/chart.svg" % d)
    for line in lines:
        print(line)
    if fails:
        print("soak: FAIL: " + "; ".join(fails))
        return 1
    print("soak: PASS")
    return 0


def cpu_rates(samples):
    """(t, % of a core) of chainwatchd between samples of the same pid."""
    out = []
    prev = None
    for s in samples:
        c, p, t = num(s["sup_cpu_s"]), s["sup_pid"], float(s["t"])
        if c is not None and prev and prev[0] == p and t > prev[1]:
            out.append((t, 100.0 * (c - prev[2]) / (t - prev[1])))
        prev = (p, t, c) if c is not None else None
    return out


COLORS = {"sup": "#1f77b4", "e1": "#2ca02c", "e2": "#ff7f0e", "e3": "#9467bd",
          "e4": "#8c564b", "metrics": "#e377c2", "queue": "#d62728",
          "lag": "#17becf", "store": "#1f77b4", "WAL": "#ff7f0e",
          "CPU": "#1f77b4"}


def esc(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;")
            .replace(">", "&gt;").replace('"', "&quot;"))


def chart(d, samples, iv, skip):
    """A hand-written SVG: one panel a measure, time across, the faults as
    shaded bands (their names in the tooltips), the start of the slopes'
    window dashed."""
    if not samples:
        return
    t0ms = int(samples[0]["epoch_ms"]) - 1000 * int(samples[0]["t"])
    tmax = max(float(s["t"]) for s in samples) or 1.0
    W, H, L, R, TOP = 1000, 150, 70, 110, 30
    panels = []
    for key, name, unit in MEASURES:
        scale = 1024.0 if unit == "KB" else 1.0
        ser = {}
        for r in ROLES:
            segs = []
            cur, curp = [], None
            for s in samples:
                p, v = s[r + "_pid"], num(s.get(r + "_" + key))
                if p != curp and cur:
                    segs.append(cur)
                    cur = []
                curp = p
                if p and v is not None:
                    cur.append((float(s["t"]), v / scale))
            if cur:
                segs.append(cur)
            if segs:
                ser[r] = segs
        panels.append(("%s%s" % (name, " (MB)" if unit == "KB" else ""), ser))

    def series(*keys, scale=1.0):
        out = {}
        for k, label in keys:
            pts = [(float(s["t"]), num(s[k]) / scale) for s in samples
                   if num(s[k]) is not None]
            if pts:
                out[label] = [pts]
        return out
    panels.append(("queue rows, lag (blocks)",
                   series(("queue_rows", "queue"), ("lag", "lag"))))
    panels.append(("store, WAL (MB)", series(("store_kb", "store"),
                                             ("wal_kb", "WAL"), scale=1024.0)))
    panels.append(("chainwatchd CPU (% of a core)",
                   {"CPU": [cpu_rates(samples)]}))
    height = TOP + len(panels) * (H + 40) + 30
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="11">' % (W, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="14">bench/soak: %s, %d s, %d '
         'faults (shaded)</text>' % (L, esc(d), tmax, len(iv))]
    pw = W - L - R
    X = lambda t: L + pw * t / tmax
    for i, (title, ser) in enumerate(panels):
        y0 = TOP + i * (H + 40) + 15
        vals = [v for segs in ser.values() for seg in segs for _, v in seg]
        vmax = max(vals, default=1.0) * 1.08 or 1.0
        Y = lambda v: y0 + H - H * v / vmax
        o.append('<text x="%d" y="%d" font-weight="bold">%s</text>'
                 % (L, y0 - 3, esc(title)))
        for a, e, f in iv:
            xa, xe = X((a - t0ms) / 1000.0), X((e - t0ms) / 1000.0)
            label = "%s %s %s %.1f-%.1f s" % (
                f["kind"], f["target"], f["arg"], (a - t0ms) / 1000.0,
                (e - t0ms) / 1000.0)
            o.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" '
                     'fill="#f4c7c3" opacity="0.6"><title>%s</title></rect>'
                     % (xa, y0, max(xe - xa, 1.0), H, esc(label)))
        o.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" '
                 'stroke="#888"/>' % (L, y0, pw, H))
        for frac in (0, 0.5, 1):
            v = vmax / 1.08 * frac
            o.append('<text x="%d" y="%.1f" text-anchor="end">%s</text>'
                     % (L - 4, Y(v) + 4, ("%.1f" % v) if vmax < 20 else
                        "%d" % v))
        o.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#555" '
                 'stroke-dasharray="4,3"/>' % (X(skip), X(skip), y0, y0 + H))
        for j, (name, segs) in enumerate(ser.items()):
            c = COLORS.get(name, "#333")
            for seg in segs:
                pts = " ".join("%.1f,%.1f" % (X(t), Y(v)) for t, v in seg)
                o.append('<polyline fill="none" stroke="%s" stroke-width="1.3" '
                         'points="%s"/>' % (c, pts))
            o.append('<text x="%d" y="%d" fill="%s">%s</text>'
                     % (W - R + 8, y0 + 12 + 13 * j, c, esc(name)))
        for frac in (0, 0.25, 0.5, 0.75, 1):
            o.append('<text x="%.1f" y="%d" text-anchor="middle">%d s</text>'
                     % (X(tmax * frac), y0 + H + 13, tmax * frac))
    o.append("</svg>")
    with open(d + "/chart.svg", "w") as f:
        f.write("\n".join(o) + "\n")


def main():
    if len(sys.argv) in (4, 5) and sys.argv[1] == "schedule":
        faulting = float(sys.argv[4]) if len(sys.argv) == 5 else None
        for line in schedule(sys.argv[2], float(sys.argv[3]), faulting):
            print(line)
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "judge":
        return judge(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    if len(sys.argv) == 6 and sys.argv[1] == "judge":
        return judge(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]),
                     sys.argv[5])
    if len(sys.argv) == 2 and sys.argv[1] == "selftest":
        return selftest()
    sys.stderr.write("usage: soak.py schedule SEED SECONDS [FAULT_SECONDS] | "
                     "judge DIR SECONDS INTERVAL | selftest\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
