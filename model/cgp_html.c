/* cgp_html.c: the report as one self-contained HTML page: no script, style sheet, font or image
   from anywhere, charts drawn here as inline SVG, so the page opens offline and travels as an
   attachment. It shows what the JSON holds, in the order a reader
   asks: which kernels, which device is fastest and by how much, what bounds each, where the cycles
   go, which source lines cost what, what is not parallel, what to change. Every number is the
   report's; the full-precision value of each predicted time rides in a data-ms attribute so that
   a test can compare the page with the JSON exactly. */
#include "cgp_report.h"
#include "cgp_json.h"
#include "cgp_file.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A source file the page quotes: far above any real one. */
#define SOURCE_CAP_BYTES ((size_t)16 << 20)

typedef struct {
  char *p;
  size_t n, cap;
  int oom;
} buf;

static void put(buf *b, const char *s, size_t n) {
  if (b->oom) return;
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 65536;
    while (cap < b->n + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) { b->oom = 1; return; }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = '\0';
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static void putf(buf *b, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* Text as HTML: & < > " ' escaped, so a kernel or file name never becomes markup. */
static void esc(buf *b, const char *s) {
  for (; s && *s; s++) {
    switch (*s) {
    case '&': puts_(b, "&amp;"); break;
    case '<': puts_(b, "&lt;"); break;
    case '>': puts_(b, "&gt;"); break;
    case '"': puts_(b, "&quot;"); break;
    case '\'': puts_(b, "&#39;"); break;
    default: put(b, s, 1);
    }
  }
}

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }
static double num(const cJSON *o, const char *k) { return cJSON_GetNumberValue(get(o, k)); }
static const char *str(const cJSON *o, const char *k) {
  const char *s = cJSON_GetStringValue(get(o, k));
  return s ? s : "";
}

/* <td> with a predicted time: the text as the summary prints it, the value whole in data-ms. */
static void ms_cell(buf *b, double ms, int fastest);

/* An FPGA's row of a kernel's table (after its device cell): its time, and in the other columns
   the design and what the time is made of (docs/model.md 11.14). */
static void fpga_row(buf *b, const cJSON *p) {
  char text[2048];
  if (cJSON_IsNumber(get(p, "time_ms"))) ms_cell(b, num(p, "time_ms"), 0);
  else puts_(b, "<td class=\"num\">?</td>");
  cgp_report_fpga_text(p, text, sizeof text);
  puts_(b, "<td colspan=\"7\">");
  esc(b, text);
  puts_(b, "</td></tr>");
}

static void ms_cell(buf *b, double ms, int fastest) {
  char t[32];
  cgp_report_format_ms(t, sizeof t, ms);
  putf(b, "<td class=\"num%s\" data-ms=\"%.17g\">%s</td>", fastest ? " best" : "", ms, t);
}

static const char *const STYLE =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}"
    "h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc}h3{font-size:15px}"
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}"
    "th{background:#f4f4f4}.num{text-align:right;font-variant-numeric:tabular-nums}.best{font-weight:bold;"
    "background:#e6f4ea}.coalesced{background:#e6f4ea}.constant{background:#f1f1f1}.uncoalesced{background:#fde8e8}"
    ".warn{color:#a15c00}.bad{color:#b00020}pre{background:#fafafa;border:1px solid #eee;padding:8px;overflow:auto}"
    ".site{color:#555}.note{color:#555;font-size:13px}svg text{font:12px system-ui,sans-serif}";

/* Horizontal bars: label, value, highlighted or not; scaled to the largest. */
static void bars(buf *b, const char *const *label, const double *v, const int *hi, int n, const char *unit) {
  double max = 0;
  for (int i = 0; i < n; i++)
    if (v[i] > max) max = v[i];
  int h = 22 * n + 6;
  putf(b, "<svg width=\"760\" height=\"%d\" role=\"img\">", h);
  for (int i = 0; i < n; i++) {
    double w = max > 0 ? 440.0 * v[i] / max : 0;
    int y = 4 + 22 * i;
    puts_(b, "<text x=\"0\" y=\"");
    putf(b, "%d\">", y + 14);
    esc(b, label[i]);
    putf(b, "</text><rect x=\"200\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"></rect>", y, w,
         hi[i] ? "#d93025" : "#8ab4f8");
    putf(b, "<text x=\"%.1f\" y=\"%d\">%.4g %s</text>", 206 + w, y + 14, v[i], unit);
  }
  puts_(b, "</svg>");
}

/* One header cell per device: its name and what the column holds. */
static void device_headers(buf *b, const cJSON *devs, const char *what) {
  const cJSON *d;
  cJSON_ArrayForEach(d, devs) {
    puts_(b, "<th>");
    esc(b, d->valuestring);
    puts_(b, what);
    puts_(b, "</th>");
  }
}

/* The summary: per kernel the time on each device, the fastest marked, its bound. */
static void summary(buf *b, const cJSON *report, const cJSON *devs) {
  const cJSON *k, *d;
  puts_(b, "<h2 id=\"summary\">Summary</h2><table><tr><th>kernel</th>");
  device_headers(b, devs, " (ms)");
  puts_(b, "<th>fastest</th><th>what bounds it there</th><th>parallel as written</th></tr>");
  cJSON_ArrayForEach(k, get(report, "kernels")) {
    const cJSON *preds = get(k, "predictions"), *p, *best = NULL, *worst = NULL;
    cJSON_ArrayForEach(p, preds) {
      if (!cJSON_IsNumber(get(p, "time_ms"))) continue;     /* an FPGA without a time */
      if (!best || num(p, "time_ms") < num(best, "time_ms")) best = p;
      if (!worst || num(p, "time_ms") > num(worst, "time_ms")) worst = p;
    }
    puts_(b, "<tr><td><a href=\"#k-");
    esc(b, str(k, "name"));
    puts_(b, "\">");
    esc(b, str(k, "name"));
    puts_(b, "</a></td>");
    cJSON_ArrayForEach(d, devs) {
      const cJSON *hit = NULL;
      cJSON_ArrayForEach(p, preds) if (strcmp(str(p, "device"), d->valuestring) == 0) hit = p;
      if (hit && cJSON_IsNumber(get(hit, "time_ms"))) ms_cell(b, num(hit, "time_ms"), hit == best);
      else puts_(b, hit ? "<td class=\"num\">?</td>" : "<td></td>");
    }
    puts_(b, "<td>");
    if (best) {
      esc(b, str(best, "device"));
      if (worst && num(best, "time_ms") > 0 && worst != best)
        putf(b, " (%.3gx faster than the slowest)", num(worst, "time_ms") / num(best, "time_ms"));
    }
    puts_(b, "</td><td>");
    if (best) esc(b, str(best, "bound"));
    puts_(b, "</td><td>");
    puts_(b, cJSON_IsFalse(get(k, "parallel_safe")) ? "<span class=\"bad\">no</span>" : "yes");
    puts_(b, "</td></tr>");
  }
  puts_(b, "</table>");
  const cJSON *k0 = cJSON_GetArrayItem(get(report, "kernels"), 0), *p, *m;
  cJSON_ArrayForEach(p, get(k0, "predictions")) {
    if (cJSON_GetArraySize(get(p, "not_modelled")) == 0) continue;
    puts_(b, "<p class=\"note\">");
    esc(b, str(p, "device"));
    puts_(b, " does not model: ");
    int first = 1;
    cJSON_ArrayForEach(m, get(p, "not_modelled")) {
      if (!first) puts_(b, ", ");
      esc(b, m->valuestring);
      first = 0;
    }
    puts_(b, " (no measurement in its device file): where those bind, it looks faster than it is.</p>");
  }
}

/* One offload estimate's cells (docs/model.md section 12): kernels, copies, offloaded, CPU, speed-up,
   verdict; the offloaded time whole in data-offload-ms for the browser test. */
static void offload_cells(buf *b, const cJSON *o) {
  char t[32];
  cgp_report_format_ms(t, sizeof t, num(o, "gpu_ms"));
  putf(b, "<td class=\"num\">%s</td>", t);
  cgp_report_format_ms(t, sizeof t, num(o, "transfer_ms"));
  putf(b, "<td class=\"num\">%s</td>", t);
  cgp_report_format_ms(t, sizeof t, num(o, "offload_ms"));
  putf(b, "<td class=\"num\" data-offload-ms=\"%.17g\">%s</td>", num(o, "offload_ms"), t);
  if (get(o, "cpu_ms")) {
    cgp_report_format_ms(t, sizeof t, num(o, "cpu_ms"));
    putf(b, num(o, "speedup") >= 100 ? "<td class=\"num\">%s</td><td class=\"num\">%.0fx</td>"
                                     : "<td class=\"num\">%s</td><td class=\"num\">%.3gx</td>", t, num(o, "speedup"));
  } else {
    puts_(b, "<td>not measured</td><td></td>");
  }
  const char *v = str(o, "verdict");
  putf(b, "<td class=\"%s\">%s", !strcmp(v, "offload") ? "best" : !strcmp(v, "unknown") ? "" : "bad", v);
  if (!strcmp(v, "unknown")) {
    cgp_report_format_ms(t, sizeof t, num(o, "offload_ms"));
    putf(b, ": worth it if the CPU takes more than %s ms", t);
  }
  puts_(b, "</td><td class=\"note\">");
  esc(b, str(o, "transfers"));
  if (num(o, "transfer_pinned_ms") < 0.99 * num(o, "transfer_ms")) {
    cgp_report_format_ms(t, sizeof t, num(o, "transfer_pinned_ms"));
    putf(b, "; from pinned memory (cudaMallocHost): %s ms", t);
  }
  puts_(b, "</td>");
}

static const char *const OFFLOAD_HEAD = "<th>kernels (ms)</th><th>copies (ms)</th><th>offloaded (ms)</th><th>CPU (ms)</th>"
                                        "<th>speed-up</th><th>verdict</th><th>copies made</th>";

/* Is offloading worth it? The program's decision per device, copies included. */
static void offload_summary(buf *b, const cJSON *report) {
  const cJSON *o, *h = get(report, "host");
  if (cJSON_GetArraySize(get(report, "offload")) == 0) return;
  putf(b, "<h2 id=\"offload\">Is offloading worth it?</h2><p class=\"note\">The program's kernels on each device "
          "against the time the CPU took for them (one core, as cgpredict compiled the nests), with the copies a "
          "CUDA port makes: %.4g MB to the device (what the kernels read that none of them wrote before), "
          "%.4g MB back (what they wrote), once for the program.</p><table><tr><th>device</th>%s</tr>",
       num(h, "bytes_read") / 1e6, num(h, "bytes_written") / 1e6, OFFLOAD_HEAD);
  cJSON_ArrayForEach(o, get(report, "offload")) {
    puts_(b, "<tr><td>");
    esc(b, str(o, "device"));
    puts_(b, "</td>");
    offload_cells(b, o);
    puts_(b, "</tr>");
  }
  puts_(b, "</table>");
}

/* Every kernel's time on every device, bars scaled to the slowest. */
static void comparison(buf *b, const cJSON *report) {
  const cJSON *k, *p;
  int n = 0;
  cJSON_ArrayForEach(k, get(report, "kernels")) cJSON_ArrayForEach(p, get(k, "predictions"))
    n += cJSON_IsNumber(get(p, "time_ms"));
  if (n == 0 || n > 2000) return;
  const char **label = calloc((size_t)n, sizeof *label);
  double *v = calloc((size_t)n, sizeof *v);
  int *hi = calloc((size_t)n, sizeof *hi);
  char (*text)[160] = calloc((size_t)n, sizeof *text);
  if (!label || !v || !hi || !text) { free(label); free(v); free(hi); free(text); b->oom = 1; return; }
  int i = 0;
  cJSON_ArrayForEach(k, get(report, "kernels")) cJSON_ArrayForEach(p, get(k, "predictions")) {
    if (!cJSON_IsNumber(get(p, "time_ms"))) continue;
    snprintf(text[i], sizeof text[i], "%.60s on %.60s", str(k, "name"), str(p, "device"));
    label[i] = text[i];
    v[i] = num(p, "time_ms");
    i++;
  }
  puts_(b, "<h2 id=\"devices\">Kernels across devices</h2>");
  bars(b, label, v, hi, n, "ms");
  free(label); free(v); free(hi); free(text);
}

/* Where one launch's cycles go: the MWP/CWP estimate against the throughput floor and the launch
   cost (docs/model.md sections 7, 7b, 9), and the floor's parts per warp. */
static void cycles_chart(buf *b, const cJSON *p) {
  const cJSON *d = get(p, "detail");
  const char *bound = str(p, "bound");
  const char *l1[] = {"MWP/CWP execution", "throughput floor", "launch"};
  double v1[] = {num(d, "cycles_mwp_cwp"), num(d, "throughput_cycles"), num(d, "launch_cycles")};
  int h1[] = {v1[0] >= v1[1] && strcmp(bound, "launch_overhead") != 0, v1[1] > v1[0] && strcmp(bound, "launch_overhead") != 0,
              strcmp(bound, "launch_overhead") == 0};
  bars(b, l1, v1, h1, 3, "cycles");
  const char *l2[] = {"DRAM", "L2 bandwidth", "LSU wavefronts", "issue", "cores"};
  const char *k2[] = {"cpw_dram", "cpw_l2", "cpw_lsu", "cpw_issue", "cpw_cores"};
  const char *b2[] = {"dram_bandwidth", "l2_bandwidth", "lsu_wavefronts", "issue", "cores"};
  double v2[5];
  int h2[5];
  for (int i = 0; i < 5; i++) { v2[i] = num(d, k2[i]); h2[i] = strcmp(bound, b2[i]) == 0; }
  puts_(b, "<div class=\"note\">the floor's parts, cycles per warp on one SM:</div>");
  bars(b, l2, v2, h2, 5, "cycles/warp");
}

/* The marked nest's source, each line with the sites on it; from the kernel's line to its last
   site's, when the file can be read (as the build named it, or beside the report). */
static void source(buf *b, const cJSON *k, const char *report_path) {
  int first = (int)num(k, "line"), last = first;
  const cJSON *m;
  cJSON_ArrayForEach(m, get(k, "memory")) if (num(m, "line") > last && num(m, "line") < first + 400) last = (int)num(m, "line");
  const char *file = str(k, "file");
  char *text = NULL, err[256];
  size_t len = 0;
  /* a regular file only (cgp_file.h): a FIFO or device named like the source is never waited on */
  if (cgp_read_regular_file(file, SOURCE_CAP_BYTES, &text, &len, err, sizeof err) != 0 && file[0] != '/') {
    char path[4200];
    const char *slash = strrchr(report_path, '/');
    snprintf(path, sizeof path, "%.*s/%s", slash ? (int)(slash - report_path) : 1, slash ? report_path : ".", file);
    cgp_read_regular_file(path, SOURCE_CAP_BYTES, &text, &len, err, sizeof err);
  }
  if (!text) {
    puts_(b, "<p class=\"note\">source not found: ");
    esc(b, file);
    puts_(b, "</p>");
    return;
  }
  puts_(b, "<pre>");
  char *line = text;
  int n = 1;
  for (char *nl; line && n <= last + 1; n++, line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    if (nl) *nl = '\0';
    if (n < first) continue;
    putf(b, "%5d  ", n);
    esc(b, line);
    cJSON_ArrayForEach(m, get(k, "memory")) if ((int)num(m, "line") == n) {
      putf(b, "\n       <span class=\"site %s\">^ %s ", str(m, "class"), str(m, "kind"));
      esc(b, str(m, "array"));
      putf(b, ": %s, %.3g transactions per warp instruction, L2 hit %.0f %%</span>", str(m, "class"),
           num(m, "transactions_per_warp"), 100 * num(m, "l2_hit_rate"));
    }
    puts_(b, "\n");
  }
  free(text);
  puts_(b, "</pre>");
}

static void memory_table(buf *b, const cJSON *k, const cJSON *devs) {
  const cJSON *m, *d;
  puts_(b, "<table><tr><th>where</th><th>array</th><th>kind</th><th>class</th><th>lanes</th>");
  device_headers(b, devs, ": transactions / L2 hit");
  puts_(b, "</tr>");
  cJSON_ArrayForEach(m, get(k, "memory")) {
    putf(b, "<tr class=\"%s\"><td>", str(m, "class"));
    esc(b, str(m, "file"));
    putf(b, ":%.0f:%.0f</td><td>", num(m, "line"), num(m, "column"));
    esc(b, str(m, "array"));
    putf(b, "</td><td>%s</td><td>%s</td><td class=\"num\">%.1f</td>", str(m, "kind"), str(m, "class"),
         num(m, "active_lanes_per_warp_instruction"));
    cJSON_ArrayForEach(d, devs) {
      const cJSON *s = get(get(m, "by_device"), d->valuestring);
      if (s) putf(b, "<td class=\"num\">%.3g / %.0f %%</td>", num(s, "transactions_per_warp"), 100 * num(s, "l2_hit_rate"));
      else puts_(b, "<td></td>");
    }
    puts_(b, "</tr>");
  }
  puts_(b, "</table>");
}

/* The block shapes `cgpredict blocks` ran (block_whatif, docs/model.md 8d): per device, every
   shape's time, the fastest highlighted. */
static void block_chart(buf *b, const cJSON *k) {
  const cJSON *wi = get(k, "block_whatif"), *w, *dev;
  int n = cJSON_GetArraySize(wi);
  if (n == 0 || n > 64) return;
  const char **label = calloc((size_t)n, sizeof *label);
  double *v = calloc((size_t)n, sizeof *v);
  int *hi = calloc((size_t)n, sizeof *hi);
  char (*text)[64] = calloc((size_t)n, sizeof *text);
  if (!label || !v || !hi || !text) { free(label); free(v); free(hi); free(text); b->oom = 1; return; }
  puts_(b, "<h3>Block shapes (cgpredict blocks)</h3>");
  cJSON_ArrayForEach(dev, get(cJSON_GetArrayItem(wi, 0), "time_ms")) {
    int i = 0, best = 0;
    cJSON_ArrayForEach(w, wi) {
      const cJSON *blk = get(w, "block");
      snprintf(text[i], sizeof text[i], "%.0fx%.0fx%.0f", cJSON_GetNumberValue(cJSON_GetArrayItem(blk, 0)),
               cJSON_GetNumberValue(cJSON_GetArrayItem(blk, 1)), cJSON_GetNumberValue(cJSON_GetArrayItem(blk, 2)));
      label[i] = text[i];
      v[i] = num(get(w, "time_ms"), dev->string);
      hi[i] = 0;
      if (v[i] < v[best]) best = i;
      i++;
    }
    hi[best] = 1;
    puts_(b, "<div class=\"note\">");
    esc(b, dev->string);
    puts_(b, ":</div>");
    bars(b, label, v, hi, n, "ms");
  }
  free(label); free(v); free(hi); free(text);
}

static void kernel_section(buf *b, const cJSON *k, const cJSON *devs, const char *report_path) {
  puts_(b, "<h2 id=\"k-");
  esc(b, str(k, "name"));
  puts_(b, "\">");
  esc(b, str(k, "name"));
  puts_(b, "</h2><p>");
  esc(b, str(k, "file"));
  putf(b, ":%.0f, %.0f launch(es), %.0f analysed; block %.0fx%.0fx%.0f, grid %.0fx%.0fx%.0f</p>", num(k, "line"),
       num(k, "launches"), num(k, "launches_sampled"), cJSON_GetNumberValue(cJSON_GetArrayItem(get(k, "block"), 0)),
       cJSON_GetNumberValue(cJSON_GetArrayItem(get(k, "block"), 1)), cJSON_GetNumberValue(cJSON_GetArrayItem(get(k, "block"), 2)),
       cJSON_GetNumberValue(cJSON_GetArrayItem(get(k, "grid"), 0)), cJSON_GetNumberValue(cJSON_GetArrayItem(get(k, "grid"), 1)),
       cJSON_GetNumberValue(cJSON_GetArrayItem(get(k, "grid"), 2)));
  const cJSON *w;
  cJSON_ArrayForEach(w, get(k, "warnings")) {
    puts_(b, "<p class=\"warn\">warning: ");
    esc(b, w->valuestring);
    puts_(b, "</p>");
  }
  const char *const notes[] = {"sampling_note", "memory_note", "launch_sampling_note", "l2_note", "left_note"};
  for (size_t i = 0; i < sizeof notes / sizeof *notes; i++)
    if (*str(k, notes[i])) {
      puts_(b, "<p class=\"note\">");
      esc(b, str(k, notes[i]));
      puts_(b, "</p>");
    }
  const cJSON *p;
  puts_(b, "<table><tr><th>device</th><th>time (ms)</th><th>bound</th><th>MWP</th><th>CWP</th><th>N</th><th>B</th>"
           "<th>batch</th><th>host sync (ms)</th></tr>");
  cJSON_ArrayForEach(p, get(k, "predictions")) {
    puts_(b, "<tr><td>");
    esc(b, str(p, "device"));
    puts_(b, "</td>");
    if (cgp_report_is_fpga(p)) {
      fpga_row(b, p);
      continue;
    }
    if (!cgp_report_has_time(p)) {                /* nothing analysed: its note says why */
      puts_(b, "<td class=\"num\">?</td><td colspan=\"7\">");
      esc(b, str(p, "note"));
      puts_(b, "</td></tr>");
      continue;
    }
    ms_cell(b, num(p, "time_ms"), 0);
    putf(b, "<td>%s</td><td class=\"num\">%.2f</td><td class=\"num\">%.2f</td><td class=\"num\">%.0f</td>"
            "<td class=\"num\">%.0f</td><td class=\"num\">%.0f</td><td class=\"num\">%.3g</td></tr>",
         str(p, "bound"), num(p, "mwp"), num(p, "cwp"), num(p, "n"), num(p, "b"), num(p, "batch"), num(p, "host_sync_ms"));
  }
  puts_(b, "</table>");
  const cJSON *h = get(k, "host");
  if (h) {
    putf(b, "<h3>Offloaded alone</h3><p class=\"note\">reads %.4g MB (copied to the device), writes %.4g MB (copied "
            "back)", num(h, "bytes_read") / 1e6, num(h, "bytes_written") / 1e6);
    if (*str(h, "cpu_note")) {
      puts_(b, "; ");
      esc(b, str(h, "cpu_note"));
    }
    putf(b, ".</p><table><tr><th>device</th>%s</tr>", OFFLOAD_HEAD);
    cJSON_ArrayForEach(p, get(k, "predictions")) {
      if (!get(p, "offload")) continue;
      puts_(b, "<tr><td>");
      esc(b, str(p, "device"));
      puts_(b, "</td>");
      offload_cells(b, get(p, "offload"));
      puts_(b, "</tr>");
    }
    puts_(b, "</table>");
  }
  block_chart(b, k);
  cJSON_ArrayForEach(p, get(k, "predictions")) {
    if (cgp_report_is_fpga(p) || !cgp_report_has_time(p)) continue;
    puts_(b, "<h3>");
    esc(b, str(p, "device"));
    puts_(b, ": where a launch's cycles go</h3>");
    cycles_chart(b, p);
    const cJSON *s;
    cJSON_ArrayForEach(s, get(p, "suggestions")) {
      puts_(b, "<p>suggestion: ");
      esc(b, str(s, "change"));
      putf(b, " (%.3gx)</p>", num(s, "speedup"));
    }
  }
  puts_(b, "<h3>Memory accesses</h3>");
  memory_table(b, k, devs);
  puts_(b, "<h3>Source</h3>");
  source(b, k, report_path);
  const cJSON *dep;
  if (cJSON_GetArraySize(get(k, "dependences")) > 0) {
    puts_(b, "<h3 class=\"bad\">Not parallel as written</h3><ul>");
    cJSON_ArrayForEach(dep, get(k, "dependences")) {
      putf(b, "<li>%s between ", str(dep, "kind"));
      esc(b, str(get(dep, "first"), "file"));
      putf(b, ":%.0f and ", num(get(dep, "first"), "line"));
      esc(b, str(get(dep, "second"), "file"));
      putf(b, ":%.0f: ", num(get(dep, "second"), "line"));
      esc(b, str(dep, "remedy"));
      if (cJSON_IsTrue(get(dep, "extrapolated")))         /* schema 1.10 */
        puts_(b, " (not seen among the traced threads: their addresses, carried to the whole grid, put two "
                 "threads on one element)");
      puts_(b, "</li>");
    }
    puts_(b, "</ul>");
  }
  if (cJSON_GetArraySize(get(k, "benign_races")) > 0) {   /* schema 1.8: they keep the loop parallel */
    puts_(b, "<h3>Benign races (parallel)</h3><ul>");
    cJSON_ArrayForEach(dep, get(k, "benign_races")) {
      const cJSON *at = get(dep, "first");
      putf(b, "<li>%s on <code>", str(dep, "kind"));
      esc(b, str(at, "array")[0] ? str(at, "array") : str(at, "variable"));
      puts_(b, "</code> at ");
      esc(b, str(at, "file"));
      putf(b, ":%.0f, every writer writing <code>", num(at, "line"));
      esc(b, str(dep, "value"));
      puts_(b, "</code>: ");
      esc(b, str(dep, "note"));
      puts_(b, "</li>");
    }
    puts_(b, "</ul>");
  }
}

int cgp_report_html(const cJSON *report, const char *report_path, char **out, size_t *len, char *err, size_t errlen) {
  buf b = {0};
  cJSON *devs = cJSON_CreateArray();             /* the devices, in the first kernel's order */
  const cJSON *k0 = cJSON_GetArrayItem(get(report, "kernels"), 0), *p;
  cJSON_ArrayForEach(p, get(k0, "predictions")) cJSON_AddItemToArray(devs, cJSON_CreateString(str(p, "device")));
  puts_(&b, "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>cgpredict: ");
  esc(&b, report_path);
  puts_(&b, "</title><style>");
  puts_(&b, STYLE);
  puts_(&b, "</style></head><body><h1>cgpredict report</h1><p class=\"note\">");
  esc(&b, report_path);
  putf(&b, " (%s, cgpredict %s): %d kernel(s) on %d device(s). Times are each device's (a GPU's or an FPGA's), summed over each "
           "kernel's launches; the host's cost of synchronising after each launch is apart.</p>",
       str(report, "version"), str(report, "tool_version"), cJSON_GetArraySize(get(report, "kernels")),
       cJSON_GetArraySize(devs));
  summary(&b, report, devs);
  offload_summary(&b, report);
  comparison(&b, report);
  const cJSON *k;
  cJSON_ArrayForEach(k, get(report, "kernels")) kernel_section(&b, k, devs, report_path);
  puts_(&b, "</body></html>\n");
  cJSON_Delete(devs);
  if (b.oom) {
    free(b.p);
    snprintf(err, errlen, "out of memory writing the HTML page");
    return -1;
  }
  *out = b.p;
  *len = b.n;
  return 0;
}

int cgp_report_write_html(const cJSON *report, const char *report_path, const char *out, char *err, size_t errlen) {
  if (cgp_same_file(out, report_path)) {
    snprintf(err, errlen, "%.2000s names the report's own file: give the page another path", out);
    return -1;
  }
  char *page = NULL;
  size_t len = 0;
  int rc = cgp_report_html(report, report_path, &page, &len, err, errlen) != 0 ||
           cgp_write_file_atomic(out, page, len, err, errlen) != 0 ? -1 : 0;
  free(page);
  return rc;
}
