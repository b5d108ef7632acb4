/* graph.c — graph algorithms on a generated graph in adjacency arrays:
 * breadth-first search, iterative depth-first search with discovery and
 * finish times, Dijkstra with a binary heap, Kahn's topological sort of a
 * DAG, and Kruskal's minimum spanning tree with union-find. */
#include <stdlib.h>
#include <string.h>
#include "common.h"

#define V 200
#define E 900
typedef struct { int32_t u, v, w; } edge;
static edge edges[E];
static int32_t adj_start[V + 1], adj[2 * E], adj_w[2 * E];

static void build_adj(int directed) {
  memset(adj_start, 0, sizeof adj_start);
  for (int i = 0; i < E; i++) {
    adj_start[edges[i].u + 1]++;
    if (!directed) adj_start[edges[i].v + 1]++;
  }
  for (int i = 0; i < V; i++) adj_start[i + 1] += adj_start[i];
  int32_t fill[V];
  memcpy(fill, adj_start, sizeof fill);
  for (int i = 0; i < E; i++) {
    adj[fill[edges[i].u]] = edges[i].v, adj_w[fill[edges[i].u]++] = edges[i].w;
    if (!directed) adj[fill[edges[i].v]] = edges[i].u, adj_w[fill[edges[i].v]++] = edges[i].w;
  }
}

static int32_t dist[V], heap_v[2 * E + V], heap_d[2 * E + V];
static int hn;
static void hpush(int32_t v, int32_t d) {
  int i = hn++;
  while (i && (heap_d[(i - 1) / 2] > d || (heap_d[(i - 1) / 2] == d && heap_v[(i - 1) / 2] > v))) {
    heap_v[i] = heap_v[(i - 1) / 2], heap_d[i] = heap_d[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  heap_v[i] = v, heap_d[i] = d;
}
static void hpop(int32_t *v, int32_t *d) {
  *v = heap_v[0], *d = heap_d[0];
  int32_t lv = heap_v[--hn], ld = heap_d[hn];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= hn) break;
    if (c + 1 < hn && (heap_d[c + 1] < heap_d[c] || (heap_d[c + 1] == heap_d[c] && heap_v[c + 1] < heap_v[c]))) c++;
    if (heap_d[c] > ld || (heap_d[c] == ld && heap_v[c] > lv)) break;
    heap_v[i] = heap_v[c], heap_d[i] = heap_d[c];
    i = c;
  }
  heap_v[i] = lv, heap_d[i] = ld;
}

static int32_t parent[V];
static int32_t find(int32_t x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}
static int by_weight(const void *a, const void *b) {
  const edge *x = a, *y = b;
  if (x->w != y->w) return x->w < y->w ? -1 : 1;
  if (x->u != y->u) return x->u < y->u ? -1 : 1;
  return (x->v > y->v) - (x->v < y->v);
}

int main(void) {
  for (int i = 0; i < E; i++) {
    int32_t u = (int32_t)(rng() % V), v = (int32_t)(rng() % V);
    if (i < V - 1) u = i, v = i + 1 + (int32_t)(rng() % 3) % (V - 1 - i); /* a spanning path-ish backbone */
    edges[i] = (edge){u, v, 1 + (int32_t)(rng() % 50)};
  }
  build_adj(0);
  /* BFS from 0 */
  int32_t level[V], queue[V], qh = 0, qt = 0, maxl = 0;
  for (int i = 0; i < V; i++) level[i] = -1;
  level[0] = 0, queue[qt++] = 0;
  while (qh < qt) {
    int32_t u = queue[qh++];
    for (int k = adj_start[u]; k < adj_start[u + 1]; k++)
      if (level[adj[k]] < 0) level[adj[k]] = level[u] + 1, queue[qt++] = adj[k], maxl = level[u] + 1;
  }
  printf("bfs: reached %d, depth %d\n", qt, maxl);
  ck((uint32_t)qt * 1000 + (uint32_t)maxl);
  /* iterative DFS */
  int32_t disc[V], fin[V], stack[V], it[V], sp = 0, time = 0;
  for (int i = 0; i < V; i++) disc[i] = -1;
  for (int s = 0; s < V; s++) {
    if (disc[s] >= 0) continue;
    disc[s] = time++, it[s] = adj_start[s], stack[sp++] = s;
    while (sp) {
      int32_t u = stack[sp - 1];
      if (it[u] < adj_start[u + 1]) {
        int32_t v = adj[it[u]++];
        if (disc[v] < 0) disc[v] = time++, it[v] = adj_start[v], stack[sp++] = v;
      } else {
        fin[u] = time++;
        sp--;
      }
    }
  }
  uint32_t dh = 0;
  for (int i = 0; i < V; i++) dh = dh * 31 + (uint32_t)(disc[i] * 512 + fin[i]);
  printf("dfs: times hash %08" PRIx32 "\n", dh);
  ck(dh);
  /* Dijkstra */
  for (int i = 0; i < V; i++) dist[i] = INT32_MAX;
  dist[0] = 0, hn = 0;
  hpush(0, 0);
  while (hn) {
    int32_t u, d;
    hpop(&u, &d);
    if (d > dist[u]) continue;
    for (int k = adj_start[u]; k < adj_start[u + 1]; k++)
      if (d + adj_w[k] < dist[adj[k]]) dist[adj[k]] = d + adj_w[k], hpush(adj[k], dist[adj[k]]);
  }
  int64_t total = 0;
  int32_t far = 0;
  for (int i = 0; i < V; i++)
    if (dist[i] != INT32_MAX) {
      total += dist[i];
      if (dist[i] > dist[far]) far = i;
    }
  printf("dijkstra: sum %" PRId64 ", farthest %" PRId32 " at %" PRId32 "\n", total, far, dist[far]);
  ck64((uint64_t)total);
  /* topological sort of the DAG keeping edges u < v */
  int32_t indeg[V] = {0}, order[V], on = 0;
  for (int i = 0; i < E; i++) {
    if (edges[i].u > edges[i].v) {
      int32_t t = edges[i].u;
      edges[i].u = edges[i].v, edges[i].v = t;
    }
    if (edges[i].u == edges[i].v) {
      if (edges[i].v == V - 1) edges[i].u = 0;
      else edges[i].v++;
    }
  }
  build_adj(1);
  for (int i = 0; i < E; i++) indeg[edges[i].v]++;
  qh = qt = 0;
  for (int i = 0; i < V; i++)
    if (!indeg[i]) queue[qt++] = i;
  while (qh < qt) {
    int32_t u = queue[qh++];
    order[on++] = u;
    for (int k = adj_start[u]; k < adj_start[u + 1]; k++)
      if (--indeg[adj[k]] == 0) queue[qt++] = adj[k];
  }
  uint32_t th = 0;
  for (int i = 0; i < on; i++) th = th * 37 + (uint32_t)order[i];
  printf("topo: %d ordered, hash %08" PRIx32 "\n", on, th);
  ck(th);
  /* Kruskal */
  qsort(edges, E, sizeof(edge), by_weight);
  for (int i = 0; i < V; i++) parent[i] = i;
  int32_t mst = 0, used = 0;
  for (int i = 0; i < E; i++) {
    int32_t a = find(edges[i].u), b = find(edges[i].v);
    if (a == b) continue;
    parent[a] = b;
    mst += edges[i].w;
    used++;
  }
  printf("kruskal: %" PRId32 " edges, weight %" PRId32 "\n", used, mst);
  ck((uint32_t)mst);
  ck_print("graph");
  return 0;
}
