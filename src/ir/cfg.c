/* cfg.c — control-flow graphs of basic blocks, and structuring them back
 * into nested wasm blocks, loops, ifs and br_tables (seed 000).
 * Reducible graphs: the dominator method (reverse postorder; a loop before
 * each loop header; a block ending before each merge node, opened at its
 * immediate dominator; single-predecessor successors inlined into if arms;
 * a loop's fall-through exit placed after the loop; edges that are only a
 * branch become br_if / direct br_table targets). No helper variable and
 * no duplicated code for any reducible graph.
 * Irreducible regions (strongly connected components with several entries)
 * are first made reducible: small ones by node splitting (copying the
 * region once per entry, under a size budget), others by routing every edge
 * into an entry through one dispatch block that switches on a label local.
 * Only the edges of that region set the label. Everything is iterative:
 * DFS, dominators (Lengauer-Tarjan / semi-NCA), loop nesting (union-find),
 * Tarjan SCCs and emission. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- building */
tl_cfg *tl_cfg_new(tl_module *m, tl_func *f) {
  tl_cfg *g = tl_calloc(1, sizeof *g);
  if (!g) return NULL;
  g->m = m;
  g->f = f;
  g->label_local = TL_NO_INDEX;
  return g;
}

static tl_cfg_block *blk(tl_cfg *g, uint32_t i) { return &TL_VEC_AT(&g->blocks, tl_cfg_block, i); }
static tl_cfg_edge *edge(tl_cfg *g, uint32_t b, uint32_t i) {
  return &TL_VEC_AT(&blk(g, b)->edges, tl_cfg_edge, i);
}

uint32_t tl_cfg_add_block(tl_cfg *g, tl_expr *code, tl_expr *switch_on) {
  tl_cfg_block b;
  memset(&b, 0, sizeof b);
  b.code = code;
  b.switch_on = switch_on;
  TL_VEC_PUSH(&g->blocks, tl_cfg_block, b);
  return (uint32_t)g->blocks.n - 1;
}

static void push_edge(tl_cfg *g, uint32_t from, tl_cfg_edge e) {
  TL_VEC_PUSH(&blk(g, from)->edges, tl_cfg_edge, e);
}

void tl_cfg_add_branch(tl_cfg *g, uint32_t from, uint32_t to, tl_expr *cond, tl_expr *code) {
  tl_cfg_edge e = {to, cond, code, NULL, 0, cond == NULL};
  push_edge(g, from, e);
}

void tl_cfg_add_switch_branch(tl_cfg *g, uint32_t from, uint32_t to, const uint32_t *cases,
                              uint32_t ncases, tl_expr *code) {
  tl_cfg_edge e = {to, NULL, code, NULL, ncases, cases == NULL};
  if (cases && ncases) {
    e.cases = TL_NEWN(&g->m->arena, uint32_t, ncases);
    memcpy(e.cases, cases, ncases * sizeof *cases);
  }
  push_edge(g, from, e);
}

void tl_cfg_keep(tl_cfg *g) {
  tl_oom_keep(g->blocks.p);
  for (size_t i = 0; i < g->blocks.n; i++) tl_oom_keep(blk(g, (uint32_t)i)->edges.p);
}

void tl_cfg_free(tl_cfg *g) {
  if (!g) return;
  for (size_t i = 0; i < g->blocks.n; i++) tl_vec_free(&blk(g, (uint32_t)i)->edges);
  tl_vec_free(&g->blocks);
  tl_free(g);
}

/* ------------------------------------------------------------- analysis */
typedef struct {
  uint32_t n;          /* blocks in the graph */
  uint32_t *rpo;       /* rpo[b]: position in reverse postorder, UINT32_MAX if unreachable */
  uint32_t *order;     /* order[i]: block at position i */
  uint32_t nreach;
  uint32_t *idom;
  uint32_t *pred_start, *pred;  /* CSR predecessor lists (reachable preds only) */
  uint32_t *dfs_vertex;         /* dfs_vertex[i]: block discovered i-th by the DFS */
  uint32_t *dfs_parent;         /* per block: its DFS tree parent */
} cfg_info;

/* The scratch arrays of the running tl_cfg_structure: each is listed here
 * from xcalloc to xfree, so that out of memory (a longjmp back to
 * tl_cfg_structure) frees them all. */
typedef struct { jmp_buf jb; void **p; size_t n, cap; } scratch_set;
static _Thread_local scratch_set *live;

static void *xcalloc(size_t n, size_t s) {
  scratch_set *z = live;
  if (z->n == z->cap) {
    void **q = tl_scratch_realloc(z->p, z->cap ? 2 * z->cap : 32, sizeof *q);
    if (!q) longjmp(z->jb, 1);
    z->p = q;
    z->cap = z->cap ? 2 * z->cap : 32;
  }
  void *p = tl_scratch_calloc(n, s);
  if (!p) longjmp(z->jb, 1);
  z->p[z->n++] = p;
  return p;
}

/* tl_free(p), and off the list when it is a scratch array (newest first). */
static void xfree(void *p) {
  scratch_set *z = live;
  for (size_t i = z && p ? z->n : 0; i-- > 0;)
    if (z->p[i] == p) {
      z->p[i] = z->p[--z->n];
      break;
    }
  tl_free(p);
}

static void info_free(cfg_info *in) {
  xfree(in->rpo);
  xfree(in->order);
  xfree(in->idom);
  xfree(in->pred_start);
  xfree(in->pred);
  xfree(in->dfs_vertex);
  xfree(in->dfs_parent);
  memset(in, 0, sizeof *in);
}

/* Iterative DFS from the entry; successors in edge order. */
static void compute_rpo(tl_cfg *g, uint32_t entry, cfg_info *in) {
  uint32_t n = in->n;
  in->rpo = xcalloc(n, sizeof(uint32_t));
  in->order = xcalloc(n, sizeof(uint32_t));
  uint32_t *post = xcalloc(n, sizeof(uint32_t)), npost = 0;
  uint32_t *stack = xcalloc(n, sizeof(uint32_t)), *next = xcalloc(n, sizeof(uint32_t));
  uint8_t *seen = xcalloc(n, 1);
  uint32_t sp = 0, npre = 0;
  in->dfs_vertex = xcalloc(n, sizeof(uint32_t));
  in->dfs_parent = xcalloc(n, sizeof(uint32_t));
  stack[sp++] = entry;
  seen[entry] = 1;
  in->dfs_vertex[npre++] = entry;
  in->dfs_parent[entry] = entry;
  while (sp) {
    uint32_t b = stack[sp - 1];
    tl_cfg_block *bb = blk(g, b);
    if (next[b] < bb->edges.n) {
      uint32_t to = edge(g, b, next[b]++)->to;
      if (!seen[to]) {
        seen[to] = 1;
        stack[sp++] = to;
        in->dfs_vertex[npre++] = to;
        in->dfs_parent[to] = b;
      }
      continue;
    }
    post[npost++] = b;
    sp--;
  }
  for (uint32_t i = 0; i < n; i++) in->rpo[i] = UINT32_MAX;
  for (uint32_t i = 0; i < npost; i++) {
    uint32_t b = post[npost - 1 - i];
    in->rpo[b] = i;
    in->order[i] = b;
  }
  in->nreach = npost;
  xfree(post);
  xfree(stack);
  xfree(next);
  xfree(seen);
}

static void compute_preds(tl_cfg *g, cfg_info *in) {
  uint32_t n = in->n;
  in->pred_start = xcalloc(n + 1, sizeof(uint32_t));
  for (uint32_t b = 0; b < n; b++) {
    if (in->rpo[b] == UINT32_MAX) continue;
    for (size_t i = 0; i < blk(g, b)->edges.n; i++) in->pred_start[edge(g, b, (uint32_t)i)->to + 1]++;
  }
  for (uint32_t b = 0; b < n; b++) in->pred_start[b + 1] += in->pred_start[b];
  in->pred = xcalloc(in->pred_start[n], sizeof(uint32_t));
  uint32_t *fill = xcalloc(n, sizeof(uint32_t));
  for (uint32_t b = 0; b < n; b++) {
    if (in->rpo[b] == UINT32_MAX) continue;
    for (size_t i = 0; i < blk(g, b)->edges.n; i++) {
      uint32_t to = edge(g, b, (uint32_t)i)->to;
      in->pred[in->pred_start[to] + fill[to]++] = b;
    }
  }
  xfree(fill);
}

/* Lengauer-Tarjan semidominators (simple link-eval with path compression,
 * iterative), then immediate dominators by the semi-NCA walk. Iterating
 * dominators to a fixpoint (Cooper-Harvey-Kennedy) takes a pass per nesting
 * level on deep loop nests: quadratic. */
static uint32_t ev(uint32_t v, uint32_t *anc, uint32_t *label, const uint32_t *semi, uint32_t *stack) {
  if (anc[v] == UINT32_MAX) return v;
  uint32_t sp = 0;
  for (uint32_t x = v; anc[anc[x]] != UINT32_MAX; x = anc[x]) stack[sp++] = x;
  while (sp) {
    uint32_t x = stack[--sp], a = anc[x];
    if (semi[label[a]] < semi[label[x]]) label[x] = label[a];
    anc[x] = anc[a];
  }
  return label[v];
}

static void compute_idom(cfg_info *in, uint32_t entry) {
  uint32_t n = in->n, nr = in->nreach;
  uint32_t *pre = xcalloc(n, sizeof(uint32_t)), *semi = xcalloc(n, sizeof(uint32_t));
  uint32_t *anc = xcalloc(n, sizeof(uint32_t)), *label = xcalloc(n, sizeof(uint32_t));
  uint32_t *stack = xcalloc(n, sizeof(uint32_t));
  in->idom = xcalloc(n, sizeof(uint32_t));
  for (uint32_t b = 0; b < n; b++) in->idom[b] = anc[b] = UINT32_MAX;
  for (uint32_t i = 0; i < nr; i++) {
    uint32_t b = in->dfs_vertex[i];
    pre[b] = semi[b] = i;
    label[b] = b;
  }
  for (uint32_t i = nr; i-- > 1;) {
    uint32_t w = in->dfs_vertex[i];
    for (uint32_t k = in->pred_start[w]; k < in->pred_start[w + 1]; k++) {
      uint32_t u = ev(in->pred[k], anc, label, semi, stack);
      if (semi[u] < semi[w]) semi[w] = semi[u];
    }
    anc[w] = in->dfs_parent[w];
  }
  in->idom[entry] = entry;
  for (uint32_t i = 1; i < nr; i++) {
    uint32_t w = in->dfs_vertex[i], d = in->dfs_parent[w];
    while (pre[d] > semi[w]) d = in->idom[d];
    in->idom[w] = d;
  }
  xfree(pre); xfree(semi); xfree(anc); xfree(label); xfree(stack);
}

static bool dominates(const cfg_info *in, uint32_t a, uint32_t b) {
  while (in->rpo[b] > in->rpo[a]) b = in->idom[b];
  return a == b;
}

static void analyze(tl_cfg *g, uint32_t entry, cfg_info *in) {
  memset(in, 0, sizeof *in);
  in->n = (uint32_t)g->blocks.n;
  compute_rpo(g, entry, in);
  compute_preds(g, in);
  compute_idom(in, entry);
}

/* A retreating edge whose target does not dominate its source, or UINT32_MAX. */
static uint32_t find_irreducible_target(tl_cfg *g, const cfg_info *in) {
  for (uint32_t i = 0; i < in->nreach; i++) {
    uint32_t b = in->order[i];
    for (size_t k = 0; k < blk(g, b)->edges.n; k++) {
      uint32_t to = edge(g, b, (uint32_t)k)->to;
      if (in->rpo[to] <= in->rpo[b] && !dominates(in, to, b)) return to;
    }
  }
  return UINT32_MAX;
}

/* Tarjan's SCC, iterative; returns the members of the SCC containing v
 * (restricted to reachable blocks not excluded) as a 0/1 array. */
static uint8_t *scc_of(tl_cfg *g, const cfg_info *in, uint32_t v, const uint8_t *excluded) {
  uint32_t n = in->n, counter = 0, sp = 0, tsp = 0;
  uint32_t *index = xcalloc(n, sizeof(uint32_t)), *low = xcalloc(n, sizeof(uint32_t));
  uint32_t *next = xcalloc(n, sizeof(uint32_t)), *call = xcalloc(n, sizeof(uint32_t));
  uint32_t *tstack = xcalloc(n, sizeof(uint32_t));
  uint8_t *on = xcalloc(n, 1), *member = xcalloc(n, 1);
  for (uint32_t i = 0; i < n; i++) index[i] = UINT32_MAX;
  call[sp++] = v;
  index[v] = low[v] = counter++;
  tstack[tsp++] = v;
  on[v] = 1;
  while (sp) {
    uint32_t b = call[sp - 1];
    if (next[b] < blk(g, b)->edges.n) {
      uint32_t to = edge(g, b, next[b]++)->to;
      if (in->rpo[to] == UINT32_MAX || excluded[to]) continue;
      if (index[to] == UINT32_MAX) {
        index[to] = low[to] = counter++;
        tstack[tsp++] = to;
        on[to] = 1;
        call[sp++] = to;
      } else if (on[to] && index[to] < low[b]) {
        low[b] = index[to];
      }
      continue;
    }
    sp--;
    if (sp && low[b] < low[call[sp - 1]]) low[call[sp - 1]] = low[b];
    if (low[b] != index[b]) continue;
    uint32_t w;
    do {
      w = tstack[--tsp];
      on[w] = 0;
      if (b == v) member[w] = 1;
    } while (w != b);
  }
  xfree(index); xfree(low); xfree(next); xfree(call); xfree(tstack); xfree(on);
  return member;
}

/* ------------------------------------------------ fixing irreducibility */
static uint64_t region_size(tl_cfg *g, const uint8_t *member, uint32_t n) {
  uint64_t size = 0;
  for (uint32_t b = 0; b < n; b++)
    if (member[b]) size += 1 + (blk(g, b)->code ? tl_expr_count(blk(g, b)->code) : 0);
  return size;
}

static tl_expr *seq(tl_cfg *g, tl_expr *a, tl_expr *b) {
  if (!a) return b;
  if (!b) return a;
  tl_expr *kids[2] = {a, b};
  return tl_make_block(g->m, TL_OP_BLOCK, TL_NO_LABEL, kids, 2);
}

static uint32_t label_local(tl_cfg *g) {
  if (g->label_local == TL_NO_INDEX) g->label_local = tl_func_add_local(g->m, g->f, TL_I32);
  return g->label_local;
}

static bool is_entry(tl_cfg *g, const cfg_info *in, const uint8_t *member, uint32_t b, uint32_t entry) {
  if (b == entry) return true;
  for (uint32_t k = in->pred_start[b]; k < in->pred_start[b + 1]; k++)
    if (!member[in->pred[k]]) return true;
  (void)g;
  return false;
}

/* Every edge into an entry of the region (from inside or out) goes to a new
 * dispatch block instead, setting the label local to that entry's case.
 * *entry_case is the case of the function entry when it is in the region. */
static uint32_t add_dispatch(tl_cfg *g, const cfg_info *in, const uint8_t *member, uint32_t entry,
                             int32_t *entry_case, bool every_block) {
  uint32_t n = in->n, nentries = 0;
  uint32_t *case_of = xcalloc(n, sizeof(uint32_t));
  for (uint32_t b = 0; b < n; b++)
    case_of[b] = member[b] && (every_block || is_entry(g, in, member, b, entry)) ? ++nentries : 0;
  *entry_case = (int32_t)case_of[entry] - 1;
  uint32_t lab = label_local(g);
  tl_expr *sw = tl_make_local_get(g->m, g->f, lab);
  uint32_t d = tl_cfg_add_block(g, NULL, sw);
  for (uint32_t b = 0; b < n; b++) {
    if (in->rpo[b] == UINT32_MAX) continue;
    for (size_t k = 0; k < blk(g, b)->edges.n; k++) {
      tl_cfg_edge *e = edge(g, b, (uint32_t)k);
      if (!case_of[e->to]) continue;
      tl_expr *set = tl_make_local_set(g->m, g->f, lab, tl_make_const_i32(g->m, (int32_t)case_of[e->to] - 1), false);
      e->code = seq(g, e->code, set);
      e->to = d;
      g->stats.label_sets++;
    }
  }
  bool first = true;
  for (uint32_t b = 0; b < n; b++) {
    if (!case_of[b]) continue;
    uint32_t c = case_of[b] - 1;
    tl_cfg_add_switch_branch(g, d, b, first ? NULL : &c, first ? 0 : 1, NULL);
    first = false;
  }
  g->stats.dispatches++;
  xfree(case_of);
  return d;
}

/* Node splitting: one copy of the region per extra entry; edges from
 * outside into entry i go to copy i; edges inside copy i stay in copy i. */
static void split_region(tl_cfg *g, const cfg_info *in, const uint8_t *member, uint32_t entry) {
  uint32_t n = in->n;
  uint32_t *entries = xcalloc(n, sizeof(uint32_t)), ne = 0;
  for (uint32_t i = 0; i < in->nreach; i++) {
    uint32_t b = in->order[i];
    if (member[b] && is_entry(g, in, member, b, entry)) entries[ne++] = b;
  }
  uint32_t *copy = xcalloc(n, sizeof(uint32_t));
  for (uint32_t ei = 1; ei < ne; ei++) {
    for (uint32_t b = 0; b < n; b++) {
      if (!member[b]) continue;
      tl_cfg_block *src = blk(g, b);
      copy[b] = tl_cfg_add_block(g, tl_expr_copy(g->m, g->f, src->code),
                                 tl_expr_copy(g->m, g->f, src->switch_on));
      g->stats.split_blocks++;
    }
    for (uint32_t b = 0; b < n; b++) {
      if (!member[b]) continue;
      for (size_t k = 0; k < blk(g, b)->edges.n; k++) {
        tl_cfg_edge e = *edge(g, b, (uint32_t)k);
        e.cond = tl_expr_copy(g->m, g->f, e.cond);
        e.code = tl_expr_copy(g->m, g->f, e.code);
        if (member[e.to]) e.to = copy[e.to];
        push_edge(g, copy[b], e);
      }
    }
    /* outside edges into entries[ei] now enter copy ei */
    for (uint32_t b = 0; b < n; b++) {
      if (member[b] || in->rpo[b] == UINT32_MAX) continue;
      for (size_t k = 0; k < blk(g, b)->edges.n; k++)
        if (edge(g, b, (uint32_t)k)->to == entries[ei]) edge(g, b, (uint32_t)k)->to = copy[entries[ei]];
    }
  }
  xfree(entries);
  xfree(copy);
}

/* A switch whose case values are too large for a br_table becomes a chain
 * of conditional edges on a temporary holding the switch value. */
static void lower_sparse_switch(tl_cfg *g, uint32_t x) {
  tl_cfg_block *b = blk(g, x);
  uint32_t max = 0;
  uint64_t ncases = 0;
  for (uint32_t k = 0; k < b->edges.n; k++) {
    tl_cfg_edge *e = edge(g, x, k);
    ncases += e->cases ? e->ncases : 0;
    for (uint32_t c = 0; e->cases && c < e->ncases; c++) max = e->cases[c] > max ? e->cases[c] : max;
  }
  if (max < TL_CFG_MAX_TABLE || max < 4 * ncases) return; /* dense enough for a br_table */
  uint32_t tmp = tl_func_add_local(g->m, g->f, TL_I32);
  b->code = seq(g, b->code, tl_make_local_set(g->m, g->f, tmp, b->switch_on, false));
  b->switch_on = NULL;
  for (uint32_t k = 0; k < b->edges.n; k++) {
    tl_cfg_edge *e = edge(g, x, k);
    tl_expr *cond = NULL;
    for (uint32_t c = 0; e->cases && c < e->ncases; c++) {
      tl_expr *eq = tl_make_binary(g->m, TL_OP_I32_EQ, tl_make_local_get(g->m, g->f, tmp),
                                   tl_make_const_i32(g->m, (int32_t)e->cases[c]));
      cond = cond ? tl_make_binary(g->m, TL_OP_I32_OR, cond, eq) : eq;
    }
    e->cond = e->is_default ? NULL : cond ? cond : tl_make_const_i32(g->m, 0);
  }
  /* conditional edges first, then the default, as branch blocks expect */
  for (uint32_t k = 0, out = 0; k < b->edges.n; k++) {
    if (!edge(g, x, k)->cond) continue;
    tl_cfg_edge t = *edge(g, x, k);
    memmove(edge(g, x, out + 1), edge(g, x, out), (k - out) * sizeof t);
    *edge(g, x, out++) = t;
  }
}

/* The smallest strongly connected region around v with several entries:
 * an SCC with one entry may still hold an irreducible one inside, so its
 * entry is set aside and the SCC of v is taken again without it. v is
 * never the one entry (it does not dominate the source of its retreating
 * edge), so this ends with two or more entries. */
static uint8_t *irreducible_region(tl_cfg *g, const cfg_info *in, uint32_t v, uint32_t entry) {
  uint8_t *excluded = xcalloc(in->n, 1);
  for (;;) {
    uint8_t *member = scc_of(g, in, v, excluded);
    uint32_t nentries = 0, last = UINT32_MAX;
    for (uint32_t b = 0; b < in->n; b++)
      if (member[b] && is_entry(g, in, member, b, entry)) {
        nentries++;
        last = b;
      }
    if (nentries >= 2 || last == UINT32_MAX || last == v) {
      xfree(excluded);
      return member;
    }
    excluded[last] = 1;
    xfree(member);
  }
}

/* Makes the graph reducible; returns the (possibly new) entry, and the
 * analysis of the final graph in *out. */
static uint32_t make_reducible(tl_cfg *g, uint32_t entry, const tl_cfg_options *opt, cfg_info *out) {
  for (uint64_t round = 0;; round++) {
    cfg_info in;
    analyze(g, entry, &in);
    uint32_t v = find_irreducible_target(g, &in);
    if (v == UINT32_MAX) {
      *out = in;
      return entry;
    }
    uint8_t *member = irreducible_region(g, &in, v, entry);
    uint32_t nentries = 0;
    for (uint32_t b = 0; b < in.n; b++) nentries += member[b] && is_entry(g, &in, member, b, entry);
    uint64_t cost = region_size(g, member, in.n) * (nentries ? nentries - 1 : 0);
    /* A safety net that never fires for graphs we know of: after too many
     * rounds every reachable block goes through one dispatcher, which is
     * reducible by construction. */
    bool everything = round > 2 * (uint64_t)in.n + 64;
    if (everything)
      for (uint32_t b = 0; b < in.n; b++) member[b] = in.rpo[b] != UINT32_MAX;
    bool split = !everything && opt && !member[entry] && g->stats.split_size + cost <= opt->split_budget;
    if (split) {
      g->stats.split_size += cost;
      split_region(g, &in, member, entry);
    } else {
      int32_t entry_case;
      uint32_t d = add_dispatch(g, &in, member, entry, &entry_case, everything);
      if (member[entry]) {
        /* the function entry is in the region: enter through the dispatcher */
        tl_expr *set = tl_make_local_set(g->m, g->f, label_local(g), tl_make_const_i32(g->m, entry_case), false);
        uint32_t pre = tl_cfg_add_block(g, set, NULL);
        tl_cfg_add_branch(g, pre, d, NULL, NULL);
        entry = pre;
      }
    }
    xfree(member);
    info_free(&in);
  }
}

/* ------------------------------------------------------------- emission */
enum { T_TREE, T_TERM, T_BRANCH, T_ELSE, T_CLOSE, T_OPEN_IF, T_BR_IF };
typedef struct { uint8_t kind; uint32_t x, e; tl_expr *cond; } task;

typedef struct {
  tl_cfg *g;
  cfg_info in;
  uint32_t *loop_label, *block_label; /* per block, TL_NO_LABEL if none */
  uint8_t *is_merge;
  uint32_t *kid_start, *kids;         /* dominator-tree children, in RPO */
  uint32_t *hoist_to;                 /* loop header y is emitted after, or UINT32_MAX */
  uint32_t *hoist_start, *hoisted;    /* per header: the blocks emitted after its loop, in RPO */
  uint8_t *targeted;                  /* per label id of this structuring */
  uint32_t label_base;
  uint32_t exit_label;
  tl_vec tasks;                       /* task */
  tl_vec open;                        /* tl_expr* under construction */
} emitter;

static void push_task(emitter *em, uint8_t kind, uint32_t x, uint32_t e, tl_expr *cond) {
  task t = {kind, x, e, cond};
  TL_VEC_PUSH(&em->tasks, task, t);
}

static tl_expr *top(emitter *em) { return TL_VEC_AT(&em->open, tl_expr *, em->open.n - 1); }

static void append(emitter *em, tl_expr *e) {
  if (!e) return;
  if (tl_type_is_concrete(e->type)) e = tl_make_drop(em->g->m, e);
  tl_expr_push_kid(em->g->m, top(em), e);
}

static void open_construct(emitter *em, tl_op op, uint32_t label) {
  tl_expr *e = tl_expr_new(em->g->m, op, 0);
  e->imm.block.label = label;
  TL_VEC_PUSH(&em->open, tl_expr *, e);
}

static bool label_targeted(emitter *em, uint32_t label) {
  return label != TL_NO_LABEL && em->targeted[label - em->label_base];
}

static void close_construct(emitter *em) {
  tl_expr *e = top(em);
  em->open.n--;
  if (e->op == TL_OP_IF) return; /* IFs close through their arms, below */
  tl_block_finalize(em->g->m, e, label_targeted(em, e->imm.block.label) ? TL_NONE : TL_UNREACHABLE);
  tl_expr *parent = top(em);
  if (parent->op == TL_OP_IF) {
    tl_expr_push_kid(em->g->m, parent, e);
    if (parent->nkid == 3) { /* else arm done: the if is complete */
      em->open.n--;
      tl_block_finalize(em->g->m, parent, TL_UNREACHABLE);
      append(em, parent);
    }
    return;
  }
  append(em, e);
}

static uint32_t new_label(emitter *em) {
  uint32_t l = tl_func_new_label(em->g->m, em->g->f);
  return l;
}

static void emit_br(emitter *em, uint32_t label) {
  tl_expr *br = tl_expr_new(em->g->m, TL_OP_BR, 0);
  br->imm.label = label;
  br->type = TL_UNREACHABLE;
  em->targeted[label - em->label_base] = 1;
  append(em, br);
}

/* Blocks that follow a construct: each gets a block ending where it starts
 * (list[s..e) in RPO, the innermost first); the tasks run them in order
 * once the construct is closed. */
static void open_followers(emitter *em, const uint32_t *list, uint32_t s, uint32_t e) {
  for (uint32_t k = e; k-- > s;) { /* runs innermost (lowest RPO) first */
    push_task(em, T_TREE, list[k], 0, NULL);
    push_task(em, T_CLOSE, 0, 0, NULL);
  }
  for (uint32_t k = e; k-- > s;) open_construct(em, TL_OP_BLOCK, em->block_label[list[k]]);
}

static bool is_follower(emitter *em, uint32_t y) {
  return em->is_merge[y] && em->hoist_to[y] == UINT32_MAX;
}

static void do_tree(emitter *em, uint32_t x) {
  tl_cfg_block *b = blk(em->g, x);
  if (em->loop_label[x] != TL_NO_LABEL) {
    /* the loop's exits come after it */
    open_followers(em, em->hoisted, em->hoist_start[x], em->hoist_start[x + 1]);
    open_construct(em, TL_OP_LOOP, em->loop_label[x]);
    push_task(em, T_CLOSE, 0, 0, NULL);
  }
  /* merge children, outermost (highest RPO) first */
  uint32_t s = em->kid_start[x], e = em->kid_start[x + 1];
  for (uint32_t k = e; k-- > s;) { /* runs innermost (lowest RPO) first */
    uint32_t y = em->kids[k];
    if (!is_follower(em, y)) continue;
    push_task(em, T_TREE, y, 0, NULL);
    push_task(em, T_CLOSE, 0, 0, NULL);
  }
  for (uint32_t k = e; k-- > s;) {
    uint32_t y = em->kids[k];
    if (is_follower(em, y)) open_construct(em, TL_OP_BLOCK, em->block_label[y]);
  }
  append(em, b->code);
  push_task(em, T_TERM, x, 0, NULL);
}

static void do_branch(emitter *em, uint32_t x, tl_cfg_edge *ed) {
  append(em, ed->code);
  uint32_t y = ed->to;
  if (em->in.rpo[y] <= em->in.rpo[x]) emit_br(em, em->loop_label[y]);
  else if (em->is_merge[y] || em->hoist_to[y] != UINT32_MAX) emit_br(em, em->block_label[y]);
  else push_task(em, T_TREE, y, 0, NULL);
}

/* if c1 {e1} else if c2 {e2} ... else {default}; pushed in reverse. */
/* The label an edge only branches to (no code on it; its target is a loop,
 * a block or only leaves the structure), or TL_NO_LABEL. A conditional
 * edge to a loop or the exit is a br_if,
 * and the other edges follow it instead of nesting in its else. A forward
 * edge to a block stays an if: when the block ends right after the else
 * chain, the br is a tail branch that goes away with the block. */
static uint32_t plain_br_label(emitter *em, uint32_t x, tl_cfg_edge *ed) {
  uint32_t y = ed->to;
  if (ed->code) return TL_NO_LABEL;
  if (em->in.rpo[y] <= em->in.rpo[x]) return em->loop_label[y];
  tl_cfg_block *b = blk(em->g, y);
  if (!b->code && !b->edges.n && !b->switch_on) return em->exit_label; /* y only leaves */
  if (em->is_merge[y] || em->hoist_to[y] != UINT32_MAX) return em->block_label[y];
  return TL_NO_LABEL;
}

static uint32_t brif_label(emitter *em, uint32_t x, tl_cfg_edge *ed) {
  if (!ed->cond || ed->cond->op == TL_OP_I32_CONST) return TL_NO_LABEL; /* ifs on constants fold */
  uint32_t l = plain_br_label(em, x, ed);
  return l != TL_NO_LABEL && l == em->block_label[ed->to] ? TL_NO_LABEL : l; /* see above */
}

static void emit_br_if(emitter *em, uint32_t label, tl_expr *cond) {
  tl_expr *br = tl_expr_new(em->g->m, TL_OP_BR_IF, 1);
  br->kid[0] = cond;
  br->imm.label = label;
  br->type = TL_NONE;
  em->targeted[label - em->label_base] = 1;
  append(em, br);
}

/* if c1 {e1} else if c2 {e2} ... else {default}; pushed in reverse. */
static void term_branches(emitter *em, uint32_t x) {
  tl_cfg_block *b = blk(em->g, x);
  uint32_t def = UINT32_MAX, nif = 0;
  for (uint32_t k = 0; k < b->edges.n; k++) {
    tl_cfg_edge *ed = edge(em->g, x, k);
    if (ed->cond) nif += brif_label(em, x, ed) == TL_NO_LABEL;
    else if (def == UINT32_MAX) def = k;
  }
  for (uint32_t i = 0; i < nif; i++) push_task(em, T_CLOSE, 0, 0, NULL);
  if (def != UINT32_MAX) push_task(em, T_BRANCH, x, def, NULL);
  else push_task(em, T_BRANCH, x, UINT32_MAX, NULL);
  for (uint32_t k = b->edges.n; k-- > 0;) {
    tl_cfg_edge *ed = edge(em->g, x, k);
    if (!ed->cond) continue;
    if (brif_label(em, x, ed) != TL_NO_LABEL) {
      push_task(em, T_BR_IF, x, k, ed->cond);
      continue;
    }
    push_task(em, T_ELSE, 0, 0, NULL);
    push_task(em, T_BRANCH, x, k, NULL);
    push_task(em, T_OPEN_IF, x, k, ed->cond);
  }
}

static uint32_t edge_of_case(tl_cfg *g, uint32_t x, uint32_t v, uint32_t def) {
  tl_cfg_block *b = blk(g, x);
  for (uint32_t k = 0; k < b->edges.n; k++) {
    tl_cfg_edge *e = edge(g, x, k);
    for (uint32_t c = 0; c < e->ncases; c++)
      if (e->cases && e->cases[c] == v) return k;
  }
  return def;
}

/* block_{m-1} ( ... block_0 (br_table ...) edge 0 ... ) edge m-1 */
static void term_switch(emitter *em, uint32_t x) {
  tl_cfg *g = em->g;
  tl_cfg_block *b = blk(g, x);
  uint32_t m = (uint32_t)b->edges.n, def = UINT32_MAX, max = 0;
  for (uint32_t k = 0; k < m; k++) {
    tl_cfg_edge *e = edge(g, x, k);
    if (e->is_default && def == UINT32_MAX) def = k;
    for (uint32_t c = 0; e->cases && c < e->ncases; c++) max = e->cases[c] > max ? e->cases[c] : max;
  }
  uint32_t nedge = m + (def == UINT32_MAX); /* a missing default leaves the structure */
  /* an edge that is only a br targets that label from the table itself;
   * the others get a block ending before their code */
  uint32_t *labels = TL_NEWN(&g->m->arena, uint32_t, nedge), first_own = g->f->nlabel;
  for (uint32_t k = 0; k < nedge; k++) {
    labels[k] = k < m ? plain_br_label(em, x, edge(g, x, k)) : em->exit_label;
    if (labels[k] == TL_NO_LABEL) labels[k] = new_label(em);
  }
  for (uint32_t k = nedge; k-- > 0;) {
    if (labels[k] < first_own) continue;
    push_task(em, T_BRANCH, x, k, NULL);
    push_task(em, T_CLOSE, 0, 0, NULL);
  }
  for (uint32_t k = nedge; k-- > 0;)
    if (labels[k] >= first_own) open_construct(em, TL_OP_BLOCK, labels[k]);
  uint32_t defk = def == UINT32_MAX ? m : def;
  uint32_t ntab = max + 1; /* lower_sparse_switch kept only dense tables */
  tl_expr *bt = tl_expr_new(g->m, TL_OP_BR_TABLE, 1);
  bt->kid[0] = b->switch_on;
  bt->imm.table = tl_brtable_new(g->m, ntab);
  for (uint32_t v = 0; v < ntab; v++) bt->imm.table->targets[v] = labels[edge_of_case(g, x, v, defk)];
  bt->imm.table->def = labels[defk];
  for (uint32_t k = 0; k < nedge; k++) em->targeted[labels[k] - em->label_base] = 1;
  tl_expr_finalize(g->m, g->f, bt);
  append(em, bt);
  g->stats.br_tables++;
}

static void drop_unused_labels(tl_module *m, tl_func *f, tl_expr **root);

/* Code that never falls through (its type, or the last of its list). */
static bool ends_unreachable(const tl_expr *code) {
  if (!code) return false;
  if (code->type == TL_UNREACHABLE) return true;
  return code->op == TL_OP_BLOCK && code->imm.block.label == TL_NO_LABEL && code->nkid &&
         code->kid[code->nkid - 1]->type == TL_UNREACHABLE;
}

static void run_task(emitter *em, task t) {
  switch (t.kind) {
  case T_TREE: do_tree(em, t.x); break;
  case T_TERM:
    if (ends_unreachable(blk(em->g, t.x)->code)) break;
    if (blk(em->g, t.x)->switch_on) term_switch(em, t.x);
    else if (blk(em->g, t.x)->edges.n == 0) emit_br(em, em->exit_label);
    else term_branches(em, t.x);
    break;
  case T_BRANCH:
    if (t.e == UINT32_MAX) emit_br(em, em->exit_label);
    else do_branch(em, t.x, edge(em->g, t.x, t.e));
    break;
  case T_BR_IF: emit_br_if(em, brif_label(em, t.x, edge(em->g, t.x, t.e)), t.cond); break;
  case T_OPEN_IF: {
    tl_expr *e = tl_expr_new(em->g->m, TL_OP_IF, 0);
    tl_expr_push_kid(em->g->m, e, t.cond);
    TL_VEC_PUSH(&em->open, tl_expr *, e);
    open_construct(em, TL_OP_BLOCK, TL_NO_LABEL); /* then arm */
    break;
  }
  case T_ELSE:
    close_construct(em);                          /* then arm into the if */
    open_construct(em, TL_OP_BLOCK, TL_NO_LABEL); /* else arm */
    break;
  case T_CLOSE: close_construct(em); break;
  }
}

/* The loop nesting forest of the (reducible) graph: loop_of[b] is the
 * innermost loop header whose loop holds b (b itself for a header), parent[h]
 * the header around header h. Headers are done innermost (highest RPO)
 * first, walking back from their back edges; a block already in an inner
 * loop stands for that whole loop (union-find on headers, path halving). */
static void loop_forest(emitter *em, uint32_t *loop_of, uint32_t *parent) {
  cfg_info *in = &em->in;
  uint32_t n = in->n, *uf = xcalloc(n, sizeof(uint32_t));
  uint32_t *work = xcalloc(2 * (size_t)in->pred_start[n] + 1, sizeof(uint32_t)); /* pushes <= 2 edges */
  for (uint32_t b = 0; b < n; b++) {
    loop_of[b] = parent[b] = UINT32_MAX;
    uf[b] = b;
  }
  for (uint32_t i = in->nreach; i-- > 0;) {
    uint32_t h = in->order[i], nw = 0;
    if (em->loop_label[h] == TL_NO_LABEL) continue;
    loop_of[h] = h;
    for (uint32_t k = in->pred_start[h]; k < in->pred_start[h + 1]; k++)
      if (in->rpo[in->pred[k]] >= in->rpo[h]) work[nw++] = in->pred[k];
    while (nw) {
      uint32_t w = work[--nw];
      if (loop_of[w] != UINT32_MAX) { /* in a loop already: its outermost header */
        w = loop_of[w];
        while (uf[w] != w) w = uf[w] = uf[uf[w]];
        if (w == h) continue;
        parent[w] = h;
        uf[w] = h;
      } else {
        loop_of[w] = h;
      }
      for (uint32_t k = in->pred_start[w]; k < in->pred_start[w + 1]; k++) {
        uint32_t p = in->pred[k];
        if (w == loop_of[w] && in->rpo[p] >= in->rpo[w]) continue; /* w's own back edges */
        if (p != h && (loop_of[p] == UINT32_MAX || uf[loop_of[p]] != h)) work[nw++] = p;
      }
    }
  }
  xfree(uf);
  xfree(work);
}

typedef struct {
  uint32_t *loop_of, *parent;  /* loop nesting forest */
  uint32_t *depth;             /* per header: loops around it, itself included */
  uint32_t *pre, *post;        /* dominator-tree intervals */
  uint32_t *last_follower;     /* per header: its highest-RPO follower */
  uint32_t *stack, *mark;      /* closure walk; mark[b] = header + 1 of the walk */
  uint64_t budget;             /* blocks the closure walks may still visit */
} hoist_ctx;

/* Is b in the loop of header h? 1 yes, 0 no, -1 not known (the walk up
 * the loop nest is capped; callers then leave things where they are). */
static int in_loop(const hoist_ctx *c, uint32_t b, uint32_t h) {
  uint32_t l = c->loop_of[b];
  for (uint32_t steps = 0; l != UINT32_MAX && c->depth[l] > c->depth[h]; steps++, l = c->parent[l])
    if (steps == 64) return -1;
  return l == h;
}

/* An exit of h: outside its loop, its immediate dominator inside; -1 not known. */
static int exits(const hoist_ctx *c, const cfg_info *in, uint32_t t, uint32_t h) {
  int a = in_loop(c, t, h), b = in_loop(c, in->idom[t], h);
  return a < 0 || b < 0 ? -1 : !a && b;
}

/* Where the emission of loop h's body ends: the successor its last
 * (fall-through) edge goes to when that is a br to a block, or UINT32_MAX
 * or an exit of the loop it would inline there; UINT32_MAX for a back
 * edge, leaving the structure, a switch, or a long walk. */
static uint32_t tail_target(emitter *em, uint32_t h, const hoist_ctx *c) {
  const uint32_t *last_follower = c->last_follower;
  uint32_t z = h;
  for (uint32_t steps = 0; steps < 4096; steps++) {
    if (z != h && last_follower[z] != UINT32_MAX) {
      z = last_follower[z];
      continue;
    }
    uint32_t next = UINT32_MAX;
    for (uint32_t k = em->kid_start[z + 1]; k-- > em->kid_start[z] && next == UINT32_MAX;)
      if (is_follower(em, em->kids[k])) next = em->kids[k];
    if (next != UINT32_MAX) {
      z = next;
      continue;
    }
    tl_cfg_block *b = blk(em->g, z);
    if (ends_unreachable(b->code) || b->switch_on) return UINT32_MAX;
    uint32_t t = UINT32_MAX;
    for (uint32_t k = 0; k < b->edges.n && t == UINT32_MAX; k++)
      if (!edge(em->g, z, k)->cond) t = edge(em->g, z, k)->to;
    if (t == UINT32_MAX || em->in.rpo[t] <= em->in.rpo[z]) return UINT32_MAX;
    int inside = in_loop(c, t, h);
    if (inside < 0) return UINT32_MAX;
    if (em->is_merge[t] || em->hoist_to[t] != UINT32_MAX || !inside) return t;
    z = t;
  }
  return UINT32_MAX;
}


/* Hoists exit t of loop h, and with it every exit of h that t reaches
 * (their blocks must enclose the loop too, for t's branches to see them).
 * The walk stays in h's dominator subtree: anything else is outside the
 * loop's construct already. */
static void hoist_exit(emitter *em, hoist_ctx *c, uint32_t h, uint32_t t) {
  cfg_info *in = &em->in;
  uint32_t sp = 0, nexit = 0;
  c->stack[sp++] = t;
  c->mark[t] = h + 1;
  while (sp) {
    uint32_t z = c->stack[--sp];
    if (!c->budget) return; /* too long a walk: t stays where it is */
    c->budget--;
    int ex = exits(c, in, z, h);
    if (ex < 0) return; /* not known: t stays where it is */
    if (ex) c->stack[in->nreach - 1 - nexit++] = z; /* exits collect at the top end */
    for (uint32_t k = 0; k < blk(em->g, z)->edges.n; k++) {
      uint32_t w = edge(em->g, z, k)->to;
      if (c->mark[w] == h + 1 || c->pre[w] < c->pre[h] || c->pre[w] >= c->post[h]) continue;
      c->mark[w] = h + 1;
      c->stack[sp++] = w;
    }
  }
  for (uint32_t i = 0; i < nexit; i++) {
    uint32_t z = c->stack[in->nreach - 1 - i], old = em->hoist_to[z];
    if (old != UINT32_MAX && c->last_follower[old] == z) c->last_follower[old] = UINT32_MAX;
    em->hoist_to[z] = h;
    if (c->last_follower[h] == UINT32_MAX || in->rpo[z] > in->rpo[c->last_follower[h]])
      c->last_follower[h] = z;
    if (em->block_label[z] == TL_NO_LABEL) em->block_label[z] = new_label(em);
  }
}

/* Pre/post numbers of the dominator tree, iteratively. */
static void dom_intervals(emitter *em, uint32_t entry, uint32_t *pre, uint32_t *post, uint32_t *stack) {
  uint32_t *next = xcalloc(em->in.n, sizeof(uint32_t)), sp = 0, clock = 0;
  stack[sp++] = entry;
  pre[entry] = clock++;
  while (sp) {
    uint32_t x = stack[sp - 1];
    if (em->kid_start[x] + next[x] < em->kid_start[x + 1]) {
      uint32_t y = em->kids[em->kid_start[x] + next[x]++];
      pre[y] = clock++;
      stack[sp++] = y;
      continue;
    }
    post[x] = clock;
    sp--;
  }
  xfree(next);
}

/* A loop's fall-through successor outside it comes after the loop (a block
 * ending after the loop construct), as a compiler lays it out, instead of
 * inside the loop where its dominator is: the br to it at the loop's tail
 * then goes away, and code that ends the function stays at its end. The
 * other exits stay where their dominator is (an `if` arm costs no more
 * than a block and a br out of the loop). Innermost loops first. */
static void setup_hoisting(emitter *em) {
  cfg_info *in = &em->in;
  uint32_t n = in->n;
  hoist_ctx c;
  c.loop_of = xcalloc(n, sizeof(uint32_t));
  c.parent = xcalloc(n, sizeof(uint32_t));
  c.pre = xcalloc(n, sizeof(uint32_t));
  c.post = xcalloc(n, sizeof(uint32_t));
  c.last_follower = xcalloc(n, sizeof(uint32_t));
  c.stack = xcalloc(n + 1, sizeof(uint32_t));
  c.mark = xcalloc(n, sizeof(uint32_t));
  c.budget = 8 * (uint64_t)n + 4096;
  em->hoist_to = xcalloc(n, sizeof(uint32_t));
  em->hoist_start = xcalloc(n + 1, sizeof(uint32_t));
  em->hoisted = xcalloc(n, sizeof(uint32_t));
  for (uint32_t b = 0; b < n; b++) em->hoist_to[b] = c.last_follower[b] = UINT32_MAX;
  loop_forest(em, c.loop_of, c.parent);
  c.depth = xcalloc(n, sizeof(uint32_t));
  for (uint32_t i = 0; i < in->nreach; i++) { /* outer headers come first in RPO */
    uint32_t h = in->order[i];
    if (c.loop_of[h] == h) c.depth[h] = 1 + (c.parent[h] == UINT32_MAX ? 0 : c.depth[c.parent[h]]);
  }
  if (in->nreach) dom_intervals(em, in->order[0], c.pre, c.post, c.stack);
  for (uint32_t i = in->nreach; i-- > 0;) {
    uint32_t h = in->order[i];
    if (em->loop_label[h] == TL_NO_LABEL) continue;
    uint32_t t = tail_target(em, h, &c);
    if (t == UINT32_MAX || exits(&c, in, t, h) != 1) continue;
    hoist_exit(em, &c, h, t);
  }
  for (uint32_t b = 0; b < n; b++)
    if (em->hoist_to[b] != UINT32_MAX) em->hoist_start[em->hoist_to[b] + 1]++;
  for (uint32_t b = 0; b < n; b++) em->hoist_start[b + 1] += em->hoist_start[b];
  uint32_t *fill = xcalloc(n, sizeof(uint32_t));
  for (uint32_t i = 1; i < in->nreach; i++) {
    uint32_t y = in->order[i], h = em->hoist_to[y];
    if (h != UINT32_MAX) em->hoisted[em->hoist_start[h] + fill[h]++] = y;
  }
  xfree(fill);
  xfree(c.loop_of); xfree(c.parent); xfree(c.depth); xfree(c.pre); xfree(c.post);
  xfree(c.last_follower); xfree(c.stack); xfree(c.mark);
}

static void setup_tree(emitter *em) {
  cfg_info *in = &em->in;
  uint32_t n = in->n;
  em->kid_start = xcalloc(n + 1, sizeof(uint32_t));
  em->kids = xcalloc(n, sizeof(uint32_t));
  for (uint32_t i = 1; i < in->nreach; i++) em->kid_start[in->idom[in->order[i]] + 1]++;
  for (uint32_t b = 0; b < n; b++) em->kid_start[b + 1] += em->kid_start[b];
  uint32_t *fill = xcalloc(n, sizeof(uint32_t));
  for (uint32_t i = 1; i < in->nreach; i++) { /* in RPO: children sorted by RPO */
    uint32_t b = in->order[i], p = in->idom[b];
    em->kids[em->kid_start[p] + fill[p]++] = b;
  }
  xfree(fill);
  em->loop_label = xcalloc(n, sizeof(uint32_t));
  em->block_label = xcalloc(n, sizeof(uint32_t));
  em->is_merge = xcalloc(n, 1);
  em->label_base = em->g->f->nlabel;
  for (uint32_t b = 0; b < n; b++) em->loop_label[b] = em->block_label[b] = TL_NO_LABEL;
  for (uint32_t i = 0; i < in->nreach; i++) {
    uint32_t b = in->order[i], fwd = 0;
    bool header = false;
    for (uint32_t k = in->pred_start[b]; k < in->pred_start[b + 1]; k++) {
      if (in->rpo[in->pred[k]] < in->rpo[b]) fwd++;
      else header = true;
    }
    if (header) em->loop_label[b] = new_label(em);
    if (fwd >= 2) {
      em->is_merge[b] = 1;
      em->block_label[b] = new_label(em);
    }
  }
  em->exit_label = new_label(em);
  setup_hoisting(em);
}

/* Out of memory: every scratch array goes, g->oom is set and the result is
 * NULL (g is left half restructured: only tl_cfg_free it). */
static tl_expr *structure_oom(tl_cfg *g, scratch_set *z, emitter *em) {
  for (size_t i = 0; i < z->n; i++) tl_free(z->p[i]);
  tl_free(z->p);
  live = NULL;
  tl_vec_free(&em->tasks);
  tl_vec_free(&em->open);
  g->oom = true;
  return NULL;
}

tl_expr *tl_cfg_structure(tl_cfg *g, uint32_t entry, const tl_cfg_options *opt) {
  if (entry >= g->blocks.n) return NULL;
  emitter em;
  memset(&em, 0, sizeof em);
  em.g = g;
  scratch_set z = {.n = 0};
  live = &z;
  if (setjmp(z.jb)) return structure_oom(g, &z, &em);
  for (uint32_t x = 0; x < g->blocks.n; x++)
    if (blk(g, x)->switch_on) lower_sparse_switch(g, x);
  entry = make_reducible(g, entry, opt, &em.in);
  setup_tree(&em);
  /* labels for switch blocks are made while emitting: size for the worst */
  size_t extra = 0;
  for (uint32_t i = 0; i < em.in.nreach; i++) extra += blk(g, em.in.order[i])->edges.n + 1;
  em.targeted = xcalloc(g->f->nlabel - em.label_base + extra + 1, 1);
  open_construct(&em, TL_OP_BLOCK, em.exit_label);
  push_task(&em, T_TREE, entry, 0, NULL);
  while (em.tasks.n) {
    task t = TL_VEC_AT(&em.tasks, task, --em.tasks.n);
    run_task(&em, t);
  }
  tl_expr *root = top(&em);
  tl_block_finalize(g->m, root, label_targeted(&em, em.exit_label) ? TL_NONE : TL_UNREACHABLE);
  tl_strip_tail_branches(g->m, g->f, &root);
  drop_unused_labels(g->m, g->f, &root);
  xfree(em.loop_label); xfree(em.block_label); xfree(em.is_merge);
  xfree(em.kid_start); xfree(em.kids); xfree(em.targeted);
  xfree(em.hoist_to); xfree(em.hoist_start); xfree(em.hoisted);
  tl_vec_free(&em.tasks);
  tl_vec_free(&em.open);
  info_free(&em.in);
  tl_free(z.p);
  live = NULL;
  return root;
}

/* ------------------------------------------------- tail branch removal */
/* Follows the tail positions of a block labeled `label` (the last element
 * of lists, both arms of ifs whose condition can finish, unlabeled
 * blocks, a try's body and catch arms) and removes a value-less br to label found there (a br_if there
 * leaves a drop of its condition, which vacuum takes if it has no
 * effects). Each node is a tail of at most one labeled block (the
 * innermost), so the whole walk is linear. */
static bool strip_in(tl_module *m, tl_expr *list, uint32_t label, tl_vec *work) {
  bool changed = false;
  work->n = 0;
  TL_VEC_PUSH(work, tl_expr *, list);
  while (work->n) {
    tl_expr *e = TL_VEC_AT(work, tl_expr *, --work->n);
    if (e->op == TL_OP_IF) {
      /* an if whose condition never finishes runs neither arm, and its
       * arms may disagree (one f64, one a block ending in the br): taking
       * the br out would leave the if invalid (fuzz opt seed 1796395395, -O3) */
      if (e->kid[0]->type == TL_UNREACHABLE) continue;
      for (uint32_t i = 1; i < e->nkid; i++)
        if (e->kid[i]->op == TL_OP_BLOCK && e->kid[i]->imm.block.label == TL_NO_LABEL)
          TL_VEC_PUSH(work, tl_expr *, e->kid[i]);
      continue;
    }
    if (e->op == TL_OP_TRY || e->op == TL_OP_TRY_TABLE) {
      /* a try's body and its catch arms end where the try ends (a
       * delegate or a try_table clause is no tail) */
      for (uint32_t i = 0; i < e->nkid; i++) {
        tl_expr *k = e->kid[i];
        if (i && (k->op == TL_OP_CATCH || k->op == TL_OP_CATCH_ALL)) k = k->kid[0];
        else if (i) continue;
        if (k->op == TL_OP_BLOCK && k->imm.block.label == TL_NO_LABEL) TL_VEC_PUSH(work, tl_expr *, k);
      }
      continue;
    }
    /* a loop's end falls through like a block's; labeled blocks inside
     * strip their own tails (each node is visited once) */
    bool descend = e->op == TL_OP_LOOP || (e->op == TL_OP_BLOCK && (e == list || e->imm.block.label == TL_NO_LABEL));
    if (!descend || !e->nkid) continue;
    tl_expr *last = e->kid[e->nkid - 1];
    if (last->op == TL_OP_BR && last->nkid == 0 && last->imm.label == label) {
      e->nkid--;
      changed = true;
    } else if (last->op == TL_OP_BR_IF && last->nkid == 1 && last->imm.label == label) {
      e->kid[e->nkid - 1] = tl_make_drop(m, last->kid[0]); /* only the condition's effects remain */
      changed = true;
    } else if (last->type == TL_NONE || last->type == TL_UNREACHABLE) {
      TL_VEC_PUSH(work, tl_expr *, last);
    }
  }
  return changed;
}

typedef struct { tl_vec work; bool changed; } strip_ctx;

/* Blocks strip only their own tails and no type is recomputed before the
 * end, so the order the blocks come in does not matter. */
static void strip_block(tl_module *m, strip_ctx *c, tl_expr *e) {
  if (e->op == TL_OP_BLOCK && e->imm.block.label != TL_NO_LABEL && e->type != TL_UNREACHABLE &&
      !tl_type_is_concrete(e->type))
    c->changed |= strip_in(m, e, e->imm.block.label, &c->work);
}

static void strip_visit(tl_walk *w, tl_expr **slot) { strip_block(w->m, w->ctx, *slot); }

bool tl_strip_tail_branches(tl_module *m, tl_func *f, tl_expr **root) {
  strip_ctx c = {{0}, false};
  tl_walk_post_only(m, f, root, strip_visit, &c, TL_F_CONTROL);
  tl_vec_free(&c.work);
  if (c.changed) tl_expr_refinalize(m, f, root);
  return c.changed;
}

bool tl_strip_tail_branches_of(tl_module *m, tl_func *f, tl_expr **root, tl_expr *const *blocks, size_t n) {
  strip_ctx c = {{0}, false};
  for (size_t i = 0; i < n; i++) strip_block(m, &c, blocks[i]);
  tl_vec_free(&c.work);
  if (c.changed) tl_expr_refinalize(m, f, root);
  return c.changed;
}

/* Labels nothing branches to are dropped (the structurer opens a block
 * for every merge node; fall-through made some of them unused), and the
 * lists are tidied in the same walk (below). */
typedef struct { uint8_t *used; } unused_ctx;

static void mark_targets(tl_walk *w, tl_expr **slot) {
  unused_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if (e->op == TL_OP_BR || e->op == TL_OP_BR_IF) c->used[e->imm.label] = 1;
  else if (e->op == TL_OP_BR_TABLE) {
    for (uint32_t i = 0; i < e->imm.table->n; i++) c->used[e->imm.table->targets[i]] = 1;
    c->used[e->imm.table->def] = 1;
  }
}

static void splice_list(tl_walk *w, tl_expr *e);

/* Post order: kids lose their labels before their list is spliced. */
static void clear_unused(tl_walk *w, tl_expr **slot) {
  unused_ctx *c = w->ctx;
  tl_expr *e = *slot;
  if ((tl_ops[e->op].flags & TL_F_CONTROL) && e->imm.block.label != TL_NO_LABEL &&
      !c->used[e->imm.block.label])
    e->imm.block.label = TL_NO_LABEL;
  splice_list(w, e);
}

static void drop_unused_labels(tl_module *m, tl_func *f, tl_expr **root) {
  unused_ctx c = {xcalloc(f->nlabel + 1, 1)};
  tl_walk_post(m, f, root, mark_targets, &c);
  tl_walk_post(m, f, root, clear_unused, &c);
  xfree(c.used);
}

/* Unlabeled statement blocks inside a list are spliced into it (a block
 * costs bytes when written; labels dropped above leave many), and so are
 * the else arms of ifs whose then arm never falls through. */
static bool spliceable(const tl_expr *e) {
  if (e->op != TL_OP_BLOCK || e->imm.block.label != TL_NO_LABEL || tl_type_is_concrete(e->type)) return false;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (tl_type_is_concrete(e->kid[i]->type)) return false;
  return true;
}

/* `if c {...; return} else {rest}` is `if c {...; return} rest`: the else
 * arm's statements, or NULL. */
static tl_expr *dead_else(const tl_expr *e, uint32_t *n) {
  if (e->op != TL_OP_IF || e->nkid != 3 || e->imm.block.label != TL_NO_LABEL || tl_type_is_concrete(e->type) ||
      e->kid[1]->type != TL_UNREACHABLE || tl_type_is_concrete(e->kid[2]->type))
    return NULL;
  *n = spliceable(e->kid[2]) ? e->kid[2]->nkid : 1;
  return e->kid[2];
}

static bool is_empty(const tl_expr *e) {
  return e->op == TL_OP_NOP || (e->op == TL_OP_BLOCK && e->imm.block.label == TL_NO_LABEL && !e->nkid);
}

/* `if c {} else {x}` (a stripped tail branch leaves these) is `if !c {x}`. */
static bool flip_empty_then(tl_module *m, tl_expr *e) {
  if (e->op != TL_OP_IF || e->nkid != 3 || e->imm.block.label != TL_NO_LABEL || !is_empty(e->kid[1]) ||
      tl_type_is_concrete(e->type))
    return false;
  tl_expr *c = e->kid[0];
  e->kid[0] = c->op == TL_OP_I32_EQZ ? c->kid[0] : tl_make_unary(m, TL_OP_I32_EQZ, c);
  e->kid[1] = e->kid[2];
  e->nkid = 2;
  return true;
}

/* Types: a spliced block had its last statement's type, so the list's
 * type stays; the ifs changed here are unlabeled and finalized at once. */
static void splice_list(tl_walk *w, tl_expr *e) {
  if (e->op != TL_OP_BLOCK && e->op != TL_OP_LOOP) return;
  uint32_t n = 0, ne;
  bool any = false;
  for (uint32_t i = 0; i < e->nkid; i++)
    if (flip_empty_then(w->m, e->kid[i])) tl_expr_finalize(w->m, w->f, e->kid[i]);
  for (uint32_t i = 0; i < e->nkid; i++) {
    bool sp = spliceable(e->kid[i]);
    any |= sp || dead_else(e->kid[i], &ne);
    n += sp ? e->kid[i]->nkid : dead_else(e->kid[i], &ne) ? 1 + ne : 1;
  }
  if (!any) return;
  tl_expr **kids = TL_NEWN(&w->m->arena, tl_expr *, n ? n : 1);
  uint32_t k = 0;
  for (uint32_t i = 0; i < e->nkid; i++) {
    tl_expr *x = e->kid[i], *els = dead_else(x, &ne);
    if (els) {
      x->nkid = 2;
      tl_expr_finalize(w->m, w->f, x);
      kids[k++] = x;
      if (spliceable(els))
        for (uint32_t j = 0; j < els->nkid; j++) kids[k++] = els->kid[j];
      else
        kids[k++] = els;
      continue;
    }
    if (!spliceable(x)) {
      kids[k++] = x;
      continue;
    }
    for (uint32_t j = 0; j < x->nkid; j++) kids[k++] = x->kid[j];
  }
  e->kid = kids;
  e->nkid = n, e->kcap = 0;
}
