/* cgp_hls_xml.c: reads a Vivado HLS / Vitis HLS csynth.xml with libxml2 (cgp_hls.h).

   The format, as the tools write it: a <profile> root; <ReportVersion><Version>;
   <UserAssignments> (<Part>, <TopModelName>, <TargetClockPeriod>, <ClockUncertainty>, ns);
   <PerformanceEstimates> with <PipelineType>, <SummaryOfTimingAnalysis><EstimatedClockPeriod>,
   <SummaryOfOverallLatency> (<Best-caseLatency>, <Average-caseLatency>, <Worst-caseLatency>,
   <Interval-min>, <Interval-max>, clock cycles) and <SummaryOfLoopLatency>, whose children are
   the loops, each an element named after the loop's label (<Shift_Accum_Loop>, <Loop1>,
   <VITIS_LOOP_7_1>; some versions put the name in a <Name> child or a name attribute) holding
   <TripCount>, <Latency>, <IterationLatency>, <PipelineII>, <PipelineDepth> and its nested loops;
   <AreaEstimates> with <Resources> and <AvailableResources> (<BRAM_18K>, <DSP48E> in Vivado HLS or
   <DSP> in Vitis, <FF>, <LUT>, <URAM>). Quirks: a count the tool cannot bound is "undef" (the
   average latency of a loop with a variable trip count) or "?"; a not-pipelined loop's II may be
   "-"; a bounded range is <range><min>a</min><max>b</max></range> or the text "a ~ b". Unknown
   elements are ignored (newer tools add more). The parser never reaches the network and does
   not load DTDs or expand external entities (libxml2 without XML_PARSE_NOENT / DTDLOAD). */
#include "cgp_hls.h"
#include "cgp_file.h"

#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/xmlerror.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HLS_FILE_CAP_BYTES ((size_t)64 << 20)
#define MAX_LOOPS 65536u
#define MAX_DEPTH 64u

static const char *const res_names[CGP_HLS_NRES] = {"BRAM_18K", "DSP", "FF", "LUT", "URAM"};

const char *cgp_hls_resource_name(unsigned i) { return i < CGP_HLS_NRES ? res_names[i] : NULL; }

typedef struct reader {
  const char *name;
  char *err;
  size_t errlen;
  cgp_hls_report *r;
} reader;

static int fail_at(reader *x, const xmlNode *n, const char *fmt, const char *a, const char *b) {
  char what[512];
  snprintf(what, sizeof what, fmt, a, b);
  long line = n ? xmlGetLineNo(n) : -1;
  if (line > 0) snprintf(x->err, x->errlen, "%s:%ld: %s", x->name, line, what);
  else snprintf(x->err, x->errlen, "%s: %s", x->name, what);
  return -1;
}

static int is(const xmlNode *n, const char *name) {
  return n && n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static const xmlNode *child(const xmlNode *n, const char *name) {
  for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (is(c, name)) return c;
  return NULL;
}

/* The element's text, trimmed, into buf (cut at cap - 1). */
static const char *text(const xmlNode *n, char *buf, size_t cap) {
  buf[0] = '\0';
  if (!n) return buf;
  xmlChar *t = xmlNodeGetContent(n);
  const char *s = t ? (const char *)t : "";
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  snprintf(buf, cap, "%s", s);
  size_t len = strlen(buf);
  while (len && (buf[len - 1] == ' ' || buf[len - 1] == '\t' || buf[len - 1] == '\n' || buf[len - 1] == '\r'))
    buf[--len] = '\0';
  xmlFree(t);
  return buf;
}

/* A whole decimal number (at most 2^63), the whole string. */
static int parse_u64(const char *s, uint64_t *v) {
  if (*s < '0' || *s > '9') return -1;
  uint64_t x = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (x > (UINT64_C(1) << 63) / 10) return -1;
    x = x * 10 + (uint64_t)(*s - '0');
  }
  if (*s) return -1;
  *v = x;
  return 0;
}

static int unknown_word(const char *s) {
  return !*s || !strcmp(s, "undef") || !strcmp(s, "?") || !strcmp(s, "-") || !strcmp(s, "N/A");
}

/* A count: absent or unknown word -> known 0; a number; "a ~ b"; <range><min/><max/></range>. */
static int count(reader *x, const xmlNode *parent, const char *name, cgp_hls_count *c) {
  const xmlNode *n = child(parent, name);
  char buf[128], lo[64], hi[64];
  memset(c, 0, sizeof *c);
  if (!n) return 0;
  const xmlNode *range = child(n, "range");
  if (range) {
    text(child(range, "min"), lo, sizeof lo);
    text(child(range, "max"), hi, sizeof hi);
  } else {
    text(n, buf, sizeof buf);
    if (unknown_word(buf)) return 0;
    char *tilde = strchr(buf, '~');
    if (tilde) {
      *tilde = '\0';
      snprintf(lo, sizeof lo, "%.60s", buf);
      snprintf(hi, sizeof hi, "%.60s", tilde + 1);
      for (char *p = lo + strlen(lo); p > lo && p[-1] == ' '; *--p = '\0') {}
      char *h = hi;
      while (*h == ' ') h++;
      memmove(hi, h, strlen(h) + 1);
    } else {
      snprintf(lo, sizeof lo, "%.60s", buf);
      snprintf(hi, sizeof hi, "%.60s", buf);
    }
  }
  if (unknown_word(lo) || unknown_word(hi)) return 0; /* "1 ~ ?": unbounded, so unknown */
  if (parse_u64(lo, &c->min) || parse_u64(hi, &c->max) || c->min > c->max)
    return fail_at(x, n, "<%s>: '%s' is neither a whole number, a range min ~ max, undef nor ?", name,
                   range ? "(range)" : text(n, buf, sizeof buf));
  c->known = 1;
  return 0;
}

/* A time in ns (TargetClockPeriod ...): NaN when absent or unknown. */
static int ns(reader *x, const xmlNode *parent, const char *name, double *v) {
  const xmlNode *n = child(parent, name);
  char buf[64];
  *v = NAN;
  if (!n || unknown_word(text(n, buf, sizeof buf))) return 0;
  char *end;
  double d = strtod(buf, &end);
  if (end == buf || *end || !isfinite(d) || d < 0)
    return fail_at(x, n, "<%s>: '%s' is not a time in ns", name, buf);
  *v = d;
  return 0;
}

static void string(const xmlNode *parent, const char *name, char *dst, size_t cap) {
  char buf[256];
  snprintf(dst, cap, "%s", text(child(parent, name), buf, sizeof buf));
}

static int resources(reader *x, const xmlNode *n, cgp_hls_count *out) {
  for (unsigned i = 0; i < CGP_HLS_NRES; i++) {
    if (i == CGP_HLS_DSP) {
      /* Vivado HLS: DSP48E (7-series DSP48E1, UltraScale DSP48E2); Vitis: DSP */
      const char *dsp[] = {"DSP", "DSP48E", "DSP48E1", "DSP48E2"};
      memset(&out[i], 0, sizeof out[i]);
      for (int k = 0; k < 4 && !out[i].known; k++)
        if (count(x, n, dsp[k], &out[i])) return -1;
    } else if (count(x, n, res_names[i], &out[i])) {
      return -1;
    }
  }
  return 0;
}

/* Is element n a loop? It holds at least one of the loop fields. */
static int is_loop(const xmlNode *n) {
  return n->type == XML_ELEMENT_NODE && (child(n, "TripCount") || child(n, "Latency") || child(n, "IterationLatency") ||
                                         child(n, "PipelineII") || child(n, "PipelineDepth"));
}

static int loops(reader *x, const xmlNode *parent, int parent_index, unsigned depth) {
  for (const xmlNode *n = parent->children; n; n = n->next) {
    if (!is_loop(n)) continue;
    if (depth >= MAX_DEPTH) return fail_at(x, n, "loops nested deeper than %s%s", "64", "");
    cgp_hls_report *r = x->r;
    if (r->n_loops >= MAX_LOOPS) return fail_at(x, n, "more than %s loops%s", "65536", "");
    if ((r->n_loops & (r->n_loops - 1)) == 0) { /* grow at powers of two */
      cgp_hls_loop *bigger = realloc(r->loops, (r->n_loops ? 2 * r->n_loops : 8) * sizeof *bigger);
      if (!bigger) return fail_at(x, n, "out of memory for the loops%s%s", "", "");
      r->loops = bigger;
    }
    cgp_hls_loop *l = &r->loops[r->n_loops];
    memset(l, 0, sizeof *l);
    l->parent = parent_index;
    l->depth = depth;
    xmlChar *attr = xmlGetProp(n, (const xmlChar *)"name");
    if (child(n, "Name")) string(n, "Name", l->name, sizeof l->name);
    else snprintf(l->name, sizeof l->name, "%s", attr ? (const char *)attr : (const char *)n->name);
    xmlFree(attr);
    int self = (int)r->n_loops++;
    if (count(x, n, "TripCount", &l->trips) || count(x, n, "Latency", &l->latency) ||
        count(x, n, "IterationLatency", &l->iteration_latency) || count(x, n, "PipelineII", &l->pipeline_ii) ||
        count(x, n, "PipelineDepth", &l->pipeline_depth))
      return -1;
    if (loops(x, n, self, depth + 1)) return -1;
  }
  return 0;
}

static int read_doc(reader *x, const xmlNode *root) {
  cgp_hls_report *r = x->r;
  if (!is(root, "profile"))
    return fail_at(x, root, "the root element is <%s>, not <profile>: not a Vivado/Vitis HLS csynth.xml%s",
                   root ? (const char *)root->name : "(none)", "");
  string(child(root, "ReportVersion"), "Version", r->version, sizeof r->version);
  const xmlNode *ua = child(root, "UserAssignments");
  string(ua, "TopModelName", r->top, sizeof r->top);
  string(ua, "Part", r->part, sizeof r->part);
  if (ns(x, ua, "TargetClockPeriod", &r->target_clock_ns) || ns(x, ua, "ClockUncertainty", &r->clock_uncertainty_ns))
    return -1;
  const xmlNode *pe = child(root, "PerformanceEstimates");
  if (!pe) return fail_at(x, root, "no <PerformanceEstimates> (a csynth.xml of a design that was not synthesized?)%s%s", "", "");
  string(pe, "PipelineType", r->pipeline_type, sizeof r->pipeline_type);
  if (ns(x, child(pe, "SummaryOfTimingAnalysis"), "EstimatedClockPeriod", &r->estimated_clock_ns)) return -1;
  const xmlNode *ol = child(pe, "SummaryOfOverallLatency");
  if (!ol) return fail_at(x, pe, "<PerformanceEstimates> has no <SummaryOfOverallLatency>%s%s", "", "");
  if (count(x, ol, "Best-caseLatency", &r->latency_best) || count(x, ol, "Average-caseLatency", &r->latency_average) ||
      count(x, ol, "Worst-caseLatency", &r->latency_worst) || count(x, ol, "Interval-min", &r->interval_min) ||
      count(x, ol, "Interval-max", &r->interval_max))
    return -1;
  if (!child(ol, "Worst-caseLatency"))
    return fail_at(x, ol, "<SummaryOfOverallLatency> has no <Worst-caseLatency>%s%s", "", "");
  const xmlNode *sl = child(pe, "SummaryOfLoopLatency");
  if (sl && loops(x, sl, -1, 0)) return -1;
  const xmlNode *ae = child(root, "AreaEstimates");
  if (ae && (resources(x, child(ae, "Resources"), r->used) || resources(x, child(ae, "AvailableResources"), r->available)))
    return -1;
  return 0;
}

/* libxml2 reports some errors (encoding conversion) through its generic handler, which prints
   to stderr whatever the parser options say; a library prints nothing, so the parse runs with
   silent handlers and the caller's are put back after it. */
static void quiet(void *ctx, const char *msg, ...) { (void)ctx, (void)msg; }
static void quiet_structured(void *ctx, xmlErrorPtr e) { (void)ctx, (void)e; }

int cgp_hls_parse(const char *textp, size_t len, const char *name, cgp_hls_report *r, char *err, size_t errlen) {
  memset(r, 0, sizeof *r);
  r->target_clock_ns = r->clock_uncertainty_ns = r->estimated_clock_ns = NAN;
  if (len > HLS_FILE_CAP_BYTES) {
    snprintf(err, errlen, "%s: larger than 64 MiB: not a csynth.xml", name);
    return -1;
  }
  xmlGenericErrorFunc old = xmlGenericError;
  void *old_ctx = xmlGenericErrorContext;
  xmlStructuredErrorFunc old_s = xmlStructuredError;
  void *old_s_ctx = xmlStructuredErrorContext;
  xmlSetGenericErrorFunc(NULL, quiet);
  xmlSetStructuredErrorFunc(NULL, quiet_structured);
  xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
  if (!ctxt) {
    xmlSetGenericErrorFunc(old_ctx, old);
    xmlSetStructuredErrorFunc(old_s_ctx, old_s);
    snprintf(err, errlen, "%s: out of memory for the XML parser", name);
    return -1;
  }
  xmlDocPtr doc = xmlCtxtReadMemory(ctxt, textp, (int)len, name, NULL,
                                    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  int rc;
  if (!doc) {
    const xmlError *e = xmlCtxtGetLastError(ctxt);
    char msg[256];
    snprintf(msg, sizeof msg, "%s", e && e->message ? e->message : "unreadable");
    size_t m = strlen(msg);
    while (m && (msg[m - 1] == '\n' || msg[m - 1] == ' ')) msg[--m] = '\0';
    if (e && e->line > 0) snprintf(err, errlen, "%s:%d: not well-formed XML: %s", name, e->line, msg);
    else snprintf(err, errlen, "%s: not well-formed XML: %s", name, msg);
    rc = -1;
  } else {
    reader x = {.name = name, .err = err, .errlen = errlen, .r = r};
    rc = read_doc(&x, xmlDocGetRootElement(doc));
    xmlFreeDoc(doc);
  }
  xmlFreeParserCtxt(ctxt);
  xmlSetGenericErrorFunc(old_ctx, old);
  xmlSetStructuredErrorFunc(old_s_ctx, old_s);
  return rc;
}

int cgp_hls_read(const char *path, cgp_hls_report *r, char *err, size_t errlen) {
  char *buf = NULL;
  size_t len = 0;
  memset(r, 0, sizeof *r);
  if (cgp_read_regular_file(path, HLS_FILE_CAP_BYTES, &buf, &len, err, errlen) != 0) return -1;
  int rc = cgp_hls_parse(buf, len, path, r, err, errlen);
  free(buf);
  return rc;
}

void cgp_hls_free(cgp_hls_report *r) {
  free(r->loops);
  r->loops = NULL;
  r->n_loops = 0;
}
