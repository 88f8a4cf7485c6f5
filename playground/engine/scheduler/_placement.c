/* Runs of equivalent pods: many scheduling cycles in one compiled loop (see equivalence.py, which
 * prepares the columns, binds what this places and says which cycles it models).
 *
 * Every step is the Python code's, in the same integer and float64 operations and order:
 *   - the window: findNodesThatPassFilters' round robin from next_start (feasible_window);
 *   - the scores: the placement's per-node part (snapshot.local_score), TaintToleration and
 *     NodeAffinity normalized over the window (NodeColumns.score), PodTopologySpread's system
 *     defaults (HostZonePlan.score: go_round of the host term plus the zone term; a lone hostname
 *     constraint comes as one zone whose term is 0.0, equivalence.spread_inputs);
 *   - the tie-break: random.Random.randrange(ties) on a copy of the generator's Mersenne Twister
 *     state (genrand_uint32 and _randbelow_with_getrandbits);
 *   - InterPodAffinity's score from each row's raw score (interpodaffinity.run_inputs: terms on
 *     hostname keys only, so that a bind changes the bound row's alone), normalized over the window
 *     as score_columns does: int64(100.0 * ((raw - low) / (high - low))), 0 when all are equal; its
 *     filter as it was before the run (the feasible rows), a bound row ruled out where the pods'
 *     required anti-affinity selects them (on a hostname key);
 *   - a DoNotSchedule spread constraint over a key of few domains on which every row counts
 *     (podtopologyspread.filter_columns' path over the kept domain sums): a row whose domain's
 *     matching pods + self-match - the lowest domain's exceed maxSkew leaves the window;
 *   - the bind's effect on the next cycle: the row's requests, pod count, feasibility and score,
 *     the matching pods' host and zone counts, and the constraint's domain sums.
 * Built with -ffp-contract=off: no fused multiply-add, so a*b+c rounds twice, as Python's does.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODE_SCORE 100
#define DEFAULT_MILLI_CPU_REQUEST 100
#define DEFAULT_MEMORY_REQUEST (200LL * 1024 * 1024)
#define MAX_TABLE 4096
#define MT_N 624
#define MT_M 397

/* The rows of the `state` matrix (one column per node row). */
enum { OK_ROW, FEASIBLE, LOCAL, ALLOC_CPU, ALLOC_MEMORY, ALLOC_PODS, REQ_CPU, REQ_MEMORY, NZ_CPU, NZ_MEMORY,
       POD_COUNT, PREFER_RAW, AFFINITY_RAW, HOST_LIVE, ZONE_IDS, SKEW_IDS, POD_AFFINITY_RAW, STATE_ROWS };

/* The `params` vector. */
enum { P_COUNT, P_START, P_TO_FIND, P_CPU, P_MEMORY, P_TAINT_WEIGHT, P_PREFER, P_AFFINITY_WEIGHT, P_SPREAD,
       P_LIVE_MAX, P_DOMAINS, P_HOST_EXTRA, P_ZONE_EXTRA, P_HOST_MATCH, P_ZONE_MATCH, P_SPREAD_WEIGHT, P_SKEW,
       P_SKEW_DOMAINS, P_SKEW_MAX, P_SKEW_SELF, P_SKEW_MIN_DOMAINS, P_POD_AFFINITY_WEIGHT, P_POD_AFFINITY_DELTA,
       P_POD_AFFINITY_EXCLUSIVE, P_MT_INDEX, PARAMS };

/* The rows of `out`: per pod placed. */
enum { O_ROW, O_START, O_WORDS, O_COUNT, OUT_ROWS };

static void twist(int64_t *mt)
{
    for (int kk = 0; kk < MT_N; kk++) {
        int64_t y = (mt[kk] & 0x80000000LL) | (mt[(kk + 1) % MT_N] & 0x7fffffffLL);
        int64_t value = mt[(kk + MT_M) % MT_N] ^ (y >> 1);
        if (y & 1)
            value ^= 0x9908b0dfLL;
        mt[kk] = value;
    }
}

static int64_t next_word(int64_t *mt, int64_t *index)
{
    if (*index >= MT_N) {
        twist(mt);
        *index = 0;
    }
    int64_t y = mt[(*index)++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680LL;
    y ^= (y << 15) & 0xefc60000LL;
    y ^= y >> 18;
    return y & 0xffffffffLL;
}

/* _randbelow_with_getrandbits(n), 1 < n < 2**32; *words counts the words drawn. */
static int64_t rand_below(int64_t n, int64_t *mt, int64_t *index, int64_t *words)
{
    int k = 0;
    while ((n >> k) != 0)
        k++;
    int64_t value;
    do {
        value = next_word(mt, index) >> (32 - k);
        (*words)++;
    } while (value >= n);
    return value;
}

/* Python's // (floor division). */
static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t least_allocated(int64_t requested, int64_t allocatable)
{
    if (allocatable == 0 || requested > allocatable)
        return 0;
    return floordiv((allocatable - requested) * MAX_NODE_SCORE, allocatable);
}

static int64_t balanced(int64_t cpu_requested, int64_t cpu_allocatable, int64_t mem_requested, int64_t mem_allocatable)
{
    if (cpu_allocatable != 0 && mem_allocatable != 0) {
        double cpu = (double)cpu_requested / (double)cpu_allocatable;
        double memory = (double)mem_requested / (double)mem_allocatable;
        if (!(cpu < 1.0))
            cpu = 1.0;
        if (!(memory < 1.0))
            memory = 1.0;
        return (int64_t)((1 - fabs(cpu - memory) / 2) * MAX_NODE_SCORE);
    }
    return MAX_NODE_SCORE; /* one fraction or none: a standard deviation of 0 */
}

static int64_t local_score(int64_t cpu, int64_t memory, int64_t nz_cpu, int64_t nz_memory, int64_t req_cpu,
                           int64_t req_memory, int64_t alloc_cpu, int64_t alloc_memory)
{
    int64_t fit = least_allocated(nz_cpu + (cpu ? cpu : DEFAULT_MILLI_CPU_REQUEST), alloc_cpu);
    fit += least_allocated(nz_memory + (memory ? memory : DEFAULT_MEMORY_REQUEST), alloc_memory);
    int64_t score = floordiv(fit, 2);
    if (cpu != 0 || memory != 0)
        score += balanced(req_cpu + cpu, alloc_cpu, req_memory + memory, alloc_memory);
    return score;
}

static int64_t go_round(double x)
{
    double whole = floor(x);
    return (int64_t)whole + (x - whole >= 0.5 ? 1 : 0);
}

typedef struct {
    int64_t n, count, to_find, cpu, memory, taint_weight, affinity_weight, spread, live_max, domains,
        host_extra, zone_extra, host_match, zone_match, spread_weight, prefer;
    /* the DoNotSchedule constraint (skew, 0 without): its domains' matching pods, the lowest of
     * them and how many domains have it, and the most a row's domain may hold for the pod being
     * placed (skew_limit) */
    int64_t skew, skew_domains, skew_max, skew_self, skew_min_domains, skew_lowest, skew_at_lowest, skew_limit;
    int64_t *skew_sums;
    /* InterPodAffinity (weight 0 without): its weight, what a bind adds to the bound row's raw score,
     * and whether a bind rules the row out (required anti-affinity against the run's own pods) */
    int64_t pod_affinity_weight, pod_affinity_delta, pod_affinity_exclusive;
    /* by (matching pods, zone) pair: spread_scores' raw score, the cycle that listed it
     * (note_pairs), and the normalized score (for the pairs of its window) */
    int64_t *pair_value, *pair_stamp, *pair_normalized;
    int64_t *col[STATE_ROWS];
    int64_t *zone_sums;
    const double *logs;
    int64_t *mt;
    int64_t *out[OUT_ROWS];
} Run;

/* The window of one cycle: its rows, and how many rows it covered. `skew` (a constant where it is
 * inlined: each loop is compiled without the other's test) adds the DoNotSchedule constraint's.
 * Each row is written into `rows` and kept by counting it only when it passes (a row that fails
 * is overwritten by the next): no branch a row, and the rows wrap round once, at n, outside the
 * inner loop. The run's fields are read into locals: the stores into `rows` could alias them. */
static inline __attribute__((always_inline)) int64_t window_of(const Run *run, int64_t start, int64_t *rows,
                                                              int64_t *processed, const int skew)
{
    const int64_t *restrict feasible = run->col[FEASIBLE], *restrict skew_ids = run->col[SKEW_IDS];
    const int64_t *restrict sums = run->skew_sums;
    const int64_t limit = run->skew_limit, n = run->n, to_find = run->to_find;
    int64_t found = 0, seen = 0, r = start;
    while (seen < n && found < to_find) {
        /* up to n or the rows not seen yet, and no further than the rows still to find: a row
         * finds at most one */
        int64_t first = r, stop = n - r < n - seen ? n : r + (n - seen);
        if (stop - r > to_find - found)
            stop = r + (to_find - found);
        if (skew) {
            for (; r < stop; r++) {
                rows[found] = r;
                found += feasible[r] != 0 && sums[skew_ids[r]] <= limit;
            }
        } else {
            for (; r < stop; r++) {
                rows[found] = r;
                found += feasible[r] != 0;
            }
        }
        seen += r - first;
        if (r == n)
            r = 0;
    }
    *processed = seen;
    return found;
}

static int64_t window(const Run *run, int64_t start, int64_t *rows, int64_t *processed)
{
    return run->skew ? window_of(run, start, rows, processed, 1) : window_of(run, start, rows, processed, 0);
}

/* The window's rows for PodTopologySpread: each row's (matching pods, zone) pair into `pairs` (a
 * row's raw score depends on that alone), each pair listed in `listed` when first seen this cycle
 * (its stamp set to `mark`); returns how many pairs are listed. */
static int64_t note_pairs(Run *run, const int64_t *rows, int64_t found, int64_t mark, int64_t *restrict pairs,
                          int64_t *restrict listed)
{
    const int64_t *restrict zone_ids = run->col[ZONE_IDS], *restrict host_live = run->col[HOST_LIVE];
    int64_t *restrict pair_stamp = run->pair_stamp;
    const int64_t domains = run->domains;
    int64_t count = 0;
    for (int64_t i = 0; i < found; i++) {
        int64_t p = host_live[rows[i]] * domains + zone_ids[rows[i]];
        pairs[i] = p;
        if (pair_stamp[p] != mark) {
            pair_stamp[p] = mark;
            listed[count++] = p;
        }
    }
    return count;
}

/* How many zones the window's rows are in: those of its `count` pairs (every row's pair is listed),
 * each counted when first seen (its stamp set to `mark`). */
static int64_t distinct_zones(const Run *run, const int64_t *listed, int64_t count, int64_t mark, int64_t *zone_stamp)
{
    int64_t zones = 0;
    for (int64_t k = 0; k < count && zones < run->domains; k++) {
        int64_t z = listed[k] % run->domains;
        if (zone_stamp[z] != mark) {
            zone_stamp[z] = mark;
            zones++;
        }
    }
    return zones;
}

/* window(), note_pairs and distinct_zones: returns the rows found, the distinct zones in *distinct
 * and the distinct pairs in *count. */
static int64_t window_spread(Run *run, int64_t start, int64_t *rows, int64_t *processed, int64_t mark,
                             int64_t *zone_stamp, int64_t *distinct, int64_t *pairs, int64_t *listed, int64_t *count)
{
    int64_t found = window(run, start, rows, processed);
    *count = note_pairs(run, rows, found, mark, pairs, listed);
    *distinct = distinct_zones(run, listed, *count, mark, zone_stamp);
    return found;
}

static int64_t highest_of(const int64_t *raw, const int64_t *rows, int64_t found)
{
    int64_t highest = 0;
    for (int64_t i = 0; i < found; i++)
        if (raw[rows[i]] > highest)
            highest = raw[rows[i]];
    return highest;
}

/* PodTopologySpread's normalized score of each of the window's `count` pairs (`listed`):
 * HostZonePlan.score's raw score (times MaxNodeScore) of a pair, computed once a cycle as the
 * window's rows of one pair share it, then normalized over the lowest and highest (those over
 * the rows are those over the pairs). */
static void spread_scores(Run *run, const int64_t *listed, int64_t count, int64_t found, int64_t distinct)
{
    double host_weight = run->logs[found], zone_weight = run->logs[distinct];
    int64_t lowest = -1, highest = 0;
    for (int64_t k = 0; k < count; k++) {
        int64_t pair = listed[k], h = pair / run->domains, z = pair % run->domains;
        double term = (double)h * host_weight + (double)run->host_extra;
        double term_zone = (double)run->zone_sums[z] * zone_weight + (double)run->zone_extra;
        int64_t value = go_round(term + term_zone) * MAX_NODE_SCORE;
        run->pair_value[pair] = value;
        if (lowest < 0 || value < lowest)
            lowest = value;
        if (value > highest)
            highest = value;
    }
    int64_t step = highest != 0 ? floordiv(highest, MAX_NODE_SCORE) : 1;
    for (int64_t k = 0; k < count; k++) { /* one division a pair, not a row */
        int64_t pair = listed[k];
        run->pair_normalized[pair] = highest == 0 ? MAX_NODE_SCORE
                                                  : floordiv(highest + lowest - run->pair_value[pair], step);
    }
}

/* The best score so far: the rows that have it, in window order, in `tied` (a higher score starts
 * the list again, so at the end it holds exactly the rows with the best score). The row is written
 * past the list whatever its score and kept only when it has the best: equal scores are common and
 * come in no pattern a branch predictor learns. */
static inline void track(int64_t score, int64_t row, int64_t *best, int64_t *tied, int64_t *ties)
{
    if (score > *best) {
        *best = score;
        *ties = 0;
    }
    tied[*ties] = row;
    *ties += score == *best;
}

/* The window's scores (Σ weight × normalized score of the default plugins, as NodeColumns.score and
 * Cycle.score add them); returns how many rows have the best, those rows in window order in `tied`.
 * With spread: `pairs` holds each row's pair, `listed` the window's `count` pairs (note_pairs). */
static int64_t score_window(Run *run, const int64_t *rows, int64_t found, int64_t distinct, const int64_t *pairs,
                            const int64_t *listed, int64_t count, int64_t *tied)
{
    const int64_t *local = run->col[LOCAL], *prefer = run->col[PREFER_RAW], *affinity = run->col[AFFINITY_RAW];
    const int64_t *pod_affinity = run->col[POD_AFFINITY_RAW];
    int64_t taint_highest = run->prefer ? highest_of(prefer, rows, found) : 0;
    int64_t affinity_highest = run->affinity_weight ? highest_of(affinity, rows, found) : 0;
    const int64_t *normalized = run->pair_normalized, spread_weight = run->spread_weight;
    if (run->spread)
        spread_scores(run, listed, count, found, distinct);
    int64_t pod_low = 0, pod_high = 0;
    if (run->pod_affinity_weight) {
        pod_low = pod_high = pod_affinity[rows[0]];
        for (int64_t i = 1; i < found; i++) {
            int64_t raw = pod_affinity[rows[i]];
            if (raw < pod_low)
                pod_low = raw;
            if (raw > pod_high)
                pod_high = raw;
        }
    }
    int64_t best = INT64_MIN, ties = 0;
    if (taint_highest == 0 && affinity_highest == 0 && pod_high == pod_low) {
        /* The usual window: no PreferNoSchedule taint and no preferred node affinity among its
         * rows, so those scores are the same for every row (the sums are exact in any order). */
        int64_t same = MAX_NODE_SCORE * run->taint_weight;
        if (run->spread) {
            for (int64_t i = 0; i < found; i++)
                track(local[rows[i]] + same + normalized[pairs[i]] * spread_weight, rows[i], &best, tied, &ties);
        } else {
            for (int64_t i = 0; i < found; i++)
                track(local[rows[i]] + same, rows[i], &best, tied, &ties);
        }
        return ties;
    }
    for (int64_t i = 0; i < found; i++) {
        int64_t row = rows[i], score = local[row];
        score += (taint_highest == 0 ? MAX_NODE_SCORE
                                     : MAX_NODE_SCORE - floordiv(MAX_NODE_SCORE * prefer[row], taint_highest))
                 * run->taint_weight;
        if (affinity_highest != 0)
            score += floordiv(MAX_NODE_SCORE * affinity[row], affinity_highest) * run->affinity_weight;
        if (run->spread)
            score += normalized[pairs[i]] * spread_weight;
        if (pod_high != pod_low) {
            double fraction = (double)(pod_affinity[row] - pod_low) / (double)(pod_high - pod_low);
            score += (int64_t)((double)MAX_NODE_SCORE * fraction) * run->pod_affinity_weight;
        }
        track(score, row, &best, tied, &ties);
    }
    return ties;
}

static void skew_lowest(Run *run);

static void bind(Run *run, int64_t row)
{
    int64_t **c = run->col, cpu = run->cpu, memory = run->memory;
    c[POD_COUNT][row] += 1;
    c[REQ_CPU][row] += cpu;
    c[REQ_MEMORY][row] += memory;
    c[NZ_CPU][row] += cpu ? cpu : DEFAULT_MILLI_CPU_REQUEST;
    c[NZ_MEMORY][row] += memory ? memory : DEFAULT_MEMORY_REQUEST;
    c[FEASIBLE][row] = c[OK_ROW][row] && c[POD_COUNT][row] < c[ALLOC_PODS][row]
        && (cpu == 0 || cpu <= c[ALLOC_CPU][row] - c[REQ_CPU][row])
        && (memory == 0 || memory <= c[ALLOC_MEMORY][row] - c[REQ_MEMORY][row]);
    c[LOCAL][row] = local_score(cpu, memory, c[NZ_CPU][row], c[NZ_MEMORY][row], c[REQ_CPU][row], c[REQ_MEMORY][row],
                                c[ALLOC_CPU][row], c[ALLOC_MEMORY][row]);
    if (run->spread) {
        c[HOST_LIVE][row] += run->host_match;
        if (c[HOST_LIVE][row] > run->live_max)
            run->live_max = c[HOST_LIVE][row];
        run->zone_sums[c[ZONE_IDS][row]] += run->zone_match;
    }
    c[POD_AFFINITY_RAW][row] += run->pod_affinity_delta;
    if (run->pod_affinity_exclusive)
        c[FEASIBLE][row] = 0;
    if (run->skew && run->skew_self) {
        int64_t *sum = &run->skew_sums[c[SKEW_IDS][row]];
        int was_lowest = *sum == run->skew_lowest;
        ++*sum;
        if (was_lowest && --run->skew_at_lowest == 0)
            skew_lowest(run); /* the last domain at the lowest count rose: count them again */
    }
}

/* The lowest of the skew constraint's domain counts, and how many domains have it (a domain's count
 * only rises in a run, so this is done again only when the last domain at the lowest rises). */
static void skew_lowest(Run *run)
{
    const int64_t *sums = run->skew_sums;
    int64_t lowest = sums[0], at = 0;
    for (int64_t d = 1; d < run->skew_domains; d++)
        if (sums[d] < lowest)
            lowest = sums[d];
    for (int64_t d = 0; d < run->skew_domains; d++)
        at += sums[d] == lowest;
    run->skew_lowest = lowest;
    run->skew_at_lowest = at;
}

/* The most matching pods a row's domain may hold for the next pod (filter_columns: the domain's
 * count + self-match - the lowest count, taken as 0 below minDomains, within maxSkew). */
static void skew_prepare(Run *run)
{
    int64_t lowest = run->skew_domains < run->skew_min_domains ? 0 : run->skew_lowest;
    run->skew_limit = lowest + run->skew_max - run->skew_self;
}

/* The pods placed; fewer than run->count where a pod fits nowhere (its cycle fails: the ordinary
 * path runs it) or the spread table would stop applying (HostZoneTable.plan). Scratch: a window's
 * rows, its best rows (`tied`), its rows' pairs and its pairs (`listed`). */
static int64_t place(Run *run, int64_t start, int64_t *mt_index, int64_t *rows, int64_t *tied, int64_t *pairs,
                     int64_t *listed, int64_t *zone_stamp)
{
    int64_t words = 0;
    for (int64_t j = 0; j < run->count; j++) {
        if (run->spread && (run->live_max + 1) * run->domains > MAX_TABLE)
            return j;
        if (run->skew)
            skew_prepare(run);
        int64_t processed, distinct = 0, count = 0;
        int64_t found = run->spread
            ? window_spread(run, start, rows, &processed, j + 1, zone_stamp, &distinct, pairs, listed, &count)
            : window(run, start, rows, &processed);
        if (found == 0)
            return j;
        start = (start + processed) % run->n;
        int64_t chosen = rows[0];
        if (found > 1) { /* selectHost: the best, ties broken by randrange(ties) */
            int64_t ties = score_window(run, rows, found, distinct, pairs, listed, count, tied);
            chosen = tied[ties > 1 ? rand_below(ties, run->mt, mt_index, &words) : 0];
        }
        bind(run, chosen);
        run->out[O_ROW][j] = chosen;
        run->out[O_START][j] = start;
        run->out[O_WORDS][j] = words;
        run->out[O_COUNT][j] = run->col[POD_COUNT][chosen];
    }
    return run->count;
}

static int get_buffer(PyObject *obj, Py_buffer *view, int floating, Py_ssize_t length, const char *what)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *format = view->format;
    if (*format == '<' || *format == '=' || *format == '@')
        format++;
    int kind_ok = floating ? strcmp(format, "d") == 0 : (strcmp(format, "q") == 0 || strcmp(format, "l") == 0);
    if (view->itemsize != 8 || !kind_ok || view->len < length * 8) {
        PyErr_Format(PyExc_ValueError, "place_pods: %s has the wrong type or size", what);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* place_pods(state, zone_sums, logs, mt, out, params, skew_sums) -> placed
 * state: int64 [STATE_ROWS, n]; zone_sums: int64 [domains]; logs: float64 [n + 1]; mt: int64 [624];
 * out: int64 [OUT_ROWS, count]; params: int64 [PARAMS] plus n at the end; skew_sums: int64
 * [skew domains] (at least one item without the constraint). */
static PyObject *place_pods(PyObject *self, PyObject *args)
{
    PyObject *objects[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &objects[0], &objects[1], &objects[2], &objects[3], &objects[4],
                          &objects[5], &objects[6]))
        return NULL;
    Py_buffer params_view, state_view, sums_view, logs_view, mt_view, out_view, skew_view;
    if (get_buffer(objects[5], &params_view, 0, PARAMS + 1, "params") < 0)
        return NULL;
    const int64_t *p = params_view.buf;
    int64_t n = p[PARAMS];
    Run run = {.n = n, .count = p[P_COUNT], .to_find = p[P_TO_FIND], .cpu = p[P_CPU], .memory = p[P_MEMORY],
               .taint_weight = p[P_TAINT_WEIGHT], .affinity_weight = p[P_AFFINITY_WEIGHT], .spread = p[P_SPREAD],
               .live_max = p[P_LIVE_MAX], .domains = p[P_DOMAINS], .host_extra = p[P_HOST_EXTRA],
               .zone_extra = p[P_ZONE_EXTRA], .host_match = p[P_HOST_MATCH], .zone_match = p[P_ZONE_MATCH],
               .spread_weight = p[P_SPREAD_WEIGHT], .prefer = p[P_PREFER], .skew_domains = p[P_SKEW_DOMAINS],
               .skew_max = p[P_SKEW_MAX], .skew_self = p[P_SKEW_SELF], .skew_min_domains = p[P_SKEW_MIN_DOMAINS],
               .pod_affinity_weight = p[P_POD_AFFINITY_WEIGHT], .pod_affinity_delta = p[P_POD_AFFINITY_DELTA],
               .pod_affinity_exclusive = p[P_POD_AFFINITY_EXCLUSIVE]};
    int64_t start = p[P_START], mt_index = p[P_MT_INDEX], skew = p[P_SKEW];
    run.skew = skew;
    PyBuffer_Release(&params_view);
    if (n <= 0 || run.to_find <= 0 || run.count < 0 || start < 0 || start >= n || mt_index < 0 || mt_index > MT_N
        || (skew && run.skew_domains <= 0)) {
        PyErr_SetString(PyExc_ValueError, "place_pods: parameters out of range");
        return NULL;
    }
    if (get_buffer(objects[0], &state_view, 0, STATE_ROWS * n, "state") < 0)
        return NULL;
    if (get_buffer(objects[1], &sums_view, 0, run.domains, "zone_sums") < 0)
        goto release_state;
    if (get_buffer(objects[2], &logs_view, 1, n + 1, "logs") < 0)
        goto release_sums;
    if (get_buffer(objects[3], &mt_view, 0, MT_N, "mt") < 0)
        goto release_logs;
    if (get_buffer(objects[4], &out_view, 0, OUT_ROWS * run.count, "out") < 0)
        goto release_mt;
    if (get_buffer(objects[6], &skew_view, 0, skew ? run.skew_domains : 1, "skew_sums") < 0)
        goto release_out;
    for (int i = 0; i < STATE_ROWS; i++)
        run.col[i] = (int64_t *)state_view.buf + i * n;
    for (int i = 0; i < OUT_ROWS; i++)
        run.out[i] = (int64_t *)out_view.buf + i * run.count;
    run.zone_sums = sums_view.buf;
    run.skew_sums = skew_view.buf;
    run.logs = logs_view.buf;
    run.mt = mt_view.buf;
    /* The pair tables are indexed by host count x domains + zone id: check what indexes them. */
    for (int64_t r = 0; run.spread && r < n; r++) {
        int64_t z = run.col[ZONE_IDS][r], h = run.col[HOST_LIVE][r];
        if (z < 0 || z >= run.domains || h < 0 || h > run.live_max) {
            PyErr_SetString(PyExc_ValueError, "place_pods: a zone id or host count is out of range");
            goto release_skew;
        }
    }
    for (int64_t r = 0; skew && r < n; r++) {
        if (run.col[SKEW_IDS][r] < 0 || run.col[SKEW_IDS][r] >= run.skew_domains) {
            PyErr_SetString(PyExc_ValueError, "place_pods: a domain id of the DoNotSchedule constraint is out of range");
            goto release_skew;
        }
    }
    /* rows, best rows, rows' pairs and pairs of a window; the zones' stamps; the pairs' scores and stamps */
    size_t window_size = (size_t)run.to_find, stamps = (size_t)run.domains + 1;
    int64_t *scratch = calloc(4 * window_size + stamps + 3 * MAX_TABLE, sizeof(int64_t));
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto release_skew;
    }
    if (skew)
        skew_lowest(&run);
    int64_t *zone_stamp = scratch + 4 * window_size;
    run.pair_stamp = zone_stamp + stamps;
    run.pair_value = run.pair_stamp + MAX_TABLE;
    run.pair_normalized = run.pair_value + MAX_TABLE;
    int64_t placed;
    Py_BEGIN_ALLOW_THREADS
    placed = place(&run, start, &mt_index, scratch, scratch + window_size, scratch + 2 * window_size,
                   scratch + 3 * window_size, zone_stamp);
    Py_END_ALLOW_THREADS
    free(scratch);
    PyBuffer_Release(&skew_view);
    PyBuffer_Release(&out_view);
    PyBuffer_Release(&mt_view);
    PyBuffer_Release(&logs_view);
    PyBuffer_Release(&sums_view);
    PyBuffer_Release(&state_view);
    return PyLong_FromLongLong((long long)placed);
release_skew:
    PyBuffer_Release(&skew_view);
release_out:
    PyBuffer_Release(&out_view);
release_mt:
    PyBuffer_Release(&mt_view);
release_logs:
    PyBuffer_Release(&logs_view);
release_sums:
    PyBuffer_Release(&sums_view);
release_state:
    PyBuffer_Release(&state_view);
    return NULL;
}

/* A read-only view of `obj` (None: no view, view->buf NULL): `length` items of int64 ('q'), float64
 * ('d') or bool ('?'). */
static int get_input(PyObject *obj, Py_buffer *view, char kind, Py_ssize_t length, const char *what)
{
    view->buf = NULL;
    view->obj = NULL;
    if (obj == Py_None)
        return 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *format = view->format;
    if (*format == '<' || *format == '=' || *format == '@' || *format == '|')
        format++;
    int kind_ok = kind == 'q' ? (strcmp(format, "q") == 0 || strcmp(format, "l") == 0) && view->itemsize == 8
                : kind == 'd' ? strcmp(format, "d") == 0 && view->itemsize == 8
                              : strcmp(format, "?") == 0 && view->itemsize == 1;
    if (!kind_ok || view->len < length * view->itemsize) {
        PyErr_Format(PyExc_ValueError, "choose_one: %s has the wrong type or size", what);
        PyBuffer_Release(view);
        view->buf = NULL;
        return -1;
    }
    return 0;
}

/* Scratch memory of choose_one, kept between calls (it runs with the GIL held, so one at a time). */
static int64_t *one_scratch = NULL;
static size_t one_scratch_size = 0;

static int64_t *scratch_of(size_t size)
{
    if (size > one_scratch_size) {
        int64_t *grown = realloc(one_scratch, size * sizeof(int64_t));
        if (grown == NULL)
            return NULL;
        one_scratch = grown;
        one_scratch_size = size;
    }
    return one_scratch;
}

enum { IN_FEASIBLE, IN_LOCAL, IN_PREFER, IN_AFFINITY, IN_HOST_LIVE, IN_ZONE_IDS, IN_ZONE_SUMS, IN_LOGS, IN_TIED,
       INPUTS };

/* choose_one(feasible, local, prefer, affinity, host_live, zone_ids, zone_sums, logs, tied, start, to_find,
 *            taint_weight, affinity_weight, spread_weight, live_max, domains, host_extra, zone_extra)
 *   -> (processed, found, row, ties)
 * One pod's cycle on the node columns as they are, reading them only (Scheduler._schedule_one's
 * compiled path, equivalence.place_one): the window from `start`, and when it holds more than one
 * row, the scores and the best. feasible: bool [n]; local: int64 [n]; prefer, affinity (None when
 * not scored), host_live, zone_ids (None without the spread's system defaults): int64 [n];
 * zone_sums: int64 [domains] or None; logs: float64 [n + 1]; tied: int64 [to_find], written.
 * row is -1 when `ties` rows share the best score: they are in `tied`, in window order, for the
 * caller to draw randrange(ties) from the simulation's own generator. */
static PyObject *choose_one(PyObject *self, PyObject *args)
{
    PyObject *objects[INPUTS];
    long long start, to_find, taint_weight, affinity_weight, spread_weight, live_max, domains, host_extra,
        zone_extra;
    if (!PyArg_ParseTuple(args, "OOOOOOOOOLLLLLLLLL", &objects[0], &objects[1], &objects[2], &objects[3],
                          &objects[4], &objects[5], &objects[6], &objects[7], &objects[8], &start, &to_find,
                          &taint_weight, &affinity_weight, &spread_weight, &live_max, &domains, &host_extra,
                          &zone_extra))
        return NULL;
    Py_buffer views[INPUTS];
    int spread = objects[IN_HOST_LIVE] != Py_None;
    PyObject *result = NULL;
    int got = 0;
    if (objects[IN_FEASIBLE] == Py_None || get_input(objects[IN_FEASIBLE], &views[IN_FEASIBLE], '?', 0, "feasible") < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "choose_one: feasible is None");
        return NULL;
    }
    got = 1;
    Py_ssize_t n = views[IN_FEASIBLE].len;
    if (n <= 0 || to_find <= 0 || start < 0 || start >= n
        || (spread && (domains <= 0 || live_max < 0 || (live_max + 1) * domains > MAX_TABLE
                       || objects[IN_ZONE_IDS] == Py_None || objects[IN_ZONE_SUMS] == Py_None))) {
        PyErr_SetString(PyExc_ValueError, "choose_one: parameters out of range");
        goto release;
    }
    static const char kinds[INPUTS] = {'?', 'q', 'q', 'q', 'q', 'q', 'q', 'd', 'q'};
    static const char *names[INPUTS] = {"feasible", "local", "prefer", "affinity", "host_live", "zone_ids",
                                        "zone_sums", "logs", "tied"};
    for (got = 1; got < INPUTS; got++) {
        Py_ssize_t length = got == IN_ZONE_SUMS ? domains : got == IN_LOGS ? n + 1 : got == IN_TIED ? to_find : n;
        if (get_input(objects[got], &views[got], kinds[got], length, names[got]) < 0)
            goto release;
    }
    if (views[IN_LOCAL].buf == NULL || views[IN_LOGS].buf == NULL || views[IN_TIED].buf == NULL
        || (affinity_weight && views[IN_AFFINITY].buf == NULL)) {
        PyErr_SetString(PyExc_ValueError, "choose_one: an array it reads is None");
        goto release;
    }
    Run run = {.n = n, .to_find = to_find, .taint_weight = taint_weight, .affinity_weight = affinity_weight,
               .spread = spread, .live_max = live_max, .domains = spread ? domains : 0, .host_extra = host_extra,
               .zone_extra = zone_extra, .spread_weight = spread_weight, .prefer = views[IN_PREFER].buf != NULL};
    run.col[LOCAL] = views[IN_LOCAL].buf;
    run.col[PREFER_RAW] = views[IN_PREFER].buf;
    run.col[AFFINITY_RAW] = views[IN_AFFINITY].buf;
    run.col[HOST_LIVE] = views[IN_HOST_LIVE].buf;
    run.col[ZONE_IDS] = views[IN_ZONE_IDS].buf;
    run.zone_sums = views[IN_ZONE_SUMS].buf;
    run.logs = views[IN_LOGS].buf;
    size_t window_size = (size_t)to_find, pairs = spread ? (size_t)((live_max + 1) * domains) : 0;
    size_t stamps = spread ? (size_t)domains + 1 : 0;
    int64_t *scratch = scratch_of(3 * window_size + stamps + 3 * pairs);
    if (scratch == NULL) {
        PyErr_NoMemory();
        goto release;
    }
    int64_t *rows = scratch, *listed = rows + window_size, *pair_of = listed + window_size;
    int64_t *zone_stamp = pair_of + window_size;
    memset(zone_stamp, 0, (stamps + 3 * pairs) * sizeof(int64_t));
    run.pair_stamp = zone_stamp + stamps;
    run.pair_value = run.pair_stamp + pairs;
    run.pair_normalized = run.pair_value + pairs;
    const unsigned char *feasible = views[IN_FEASIBLE].buf;
    int64_t found = 0, processed = 0, r = start;
    while (processed < n && found < to_find) { /* window(), on the bool column */
        if (feasible[r])
            rows[found++] = r;
        processed++;
        if (++r == n)
            r = 0;
    }
    int64_t row = found ? rows[0] : -1, ties = found ? 1 : 0;
    if (found > 1) {
        int64_t distinct = 0, count = 0;
        for (int64_t i = 0; spread && i < found; i++) {
            int64_t z = run.col[ZONE_IDS][rows[i]], h = run.col[HOST_LIVE][rows[i]];
            if (z < 0 || z >= domains || h < 0 || h > live_max) { /* what the pair tables are indexed by */
                PyErr_SetString(PyExc_ValueError, "choose_one: a zone id or host count is out of range");
                goto release;
            }
        }
        if (spread) {
            count = note_pairs(&run, rows, found, 1, pair_of, listed);
            distinct = distinct_zones(&run, listed, count, 1, zone_stamp);
        }
        int64_t *tied = views[IN_TIED].buf;
        ties = score_window(&run, rows, found, distinct, pair_of, listed, count, tied);
        row = ties == 1 ? tied[0] : -1;
    }
    result = Py_BuildValue("(LLLL)", (long long)processed, (long long)found, (long long)row, (long long)ties);
release:
    for (int i = 0; i < got; i++)
        if (views[i].buf != NULL)
            PyBuffer_Release(&views[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"place_pods", place_pods, METH_VARARGS, "Place a run of equivalent pods (see equivalence.py)."},
    {"choose_one", choose_one, METH_VARARGS, "One pod's cycle on the node columns (see equivalence.place_one)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_placement", NULL, -1, methods};

PyMODINIT_FUNC PyInit__placement(void)
{
    return PyModule_Create(&module);
}
