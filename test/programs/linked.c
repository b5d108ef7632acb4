/* linked.c — linked structures on malloc/free: a singly linked list
 * (push, reverse, merge sort, remove matching), a doubly linked list used
 * as a deque, and an unbalanced binary search tree with insert, delete,
 * in-order walk (iterative) and height; frees everything at the end. */
#include <stdlib.h>
#include "common.h"

typedef struct snode { int32_t v; struct snode *next; } snode;
static snode *push(snode *h, int32_t v) {
  snode *n = malloc(sizeof *n);
  n->v = v;
  n->next = h;
  return n;
}
static snode *reverse(snode *h) {
  snode *r = NULL;
  while (h) {
    snode *n = h->next;
    h->next = r;
    r = h;
    h = n;
  }
  return r;
}
static snode *merge_lists(snode *a, snode *b) {
  snode head, *t = &head;
  while (a && b) {
    if (b->v < a->v) t->next = b, b = b->next;
    else t->next = a, a = a->next;
    t = t->next;
  }
  t->next = a ? a : b;
  return head.next;
}
static snode *msort(snode *h) {
  if (!h || !h->next) return h;
  snode *slow = h, *fast = h->next;
  while (fast && fast->next) slow = slow->next, fast = fast->next->next;
  snode *b = slow->next;
  slow->next = NULL;
  return merge_lists(msort(h), msort(b));
}
static snode *remove_if(snode *h, int32_t mod, int *removed) {
  snode **pp = &h;
  while (*pp) {
    if ((*pp)->v % mod == 0) {
      snode *d = *pp;
      *pp = d->next;
      free(d);
      (*removed)++;
    } else {
      pp = &(*pp)->next;
    }
  }
  return h;
}

typedef struct dnode { int32_t v; struct dnode *prev, *next; } dnode;
typedef struct { dnode *head, *tail; int n; } deque;
static void push_back(deque *d, int32_t v) {
  dnode *n = calloc(1, sizeof *n);
  n->v = v;
  n->prev = d->tail;
  if (d->tail) d->tail->next = n; else d->head = n;
  d->tail = n;
  d->n++;
}
static void push_front(deque *d, int32_t v) {
  dnode *n = calloc(1, sizeof *n);
  n->v = v;
  n->next = d->head;
  if (d->head) d->head->prev = n; else d->tail = n;
  d->head = n;
  d->n++;
}
static int32_t pop_front(deque *d) {
  dnode *n = d->head;
  int32_t v = n->v;
  d->head = n->next;
  if (d->head) d->head->prev = NULL; else d->tail = NULL;
  free(n);
  d->n--;
  return v;
}
static int32_t pop_back(deque *d) {
  dnode *n = d->tail;
  int32_t v = n->v;
  d->tail = n->prev;
  if (d->tail) d->tail->next = NULL; else d->head = NULL;
  free(n);
  d->n--;
  return v;
}

typedef struct tnode { int32_t key; struct tnode *l, *r; } tnode;
static tnode *insert(tnode *t, int32_t k) {
  tnode **pp = &t;
  while (*pp) {
    if (k == (*pp)->key) return t;
    pp = k < (*pp)->key ? &(*pp)->l : &(*pp)->r;
  }
  *pp = calloc(1, sizeof **pp);
  (*pp)->key = k;
  return t;
}
static tnode *delete(tnode *t, int32_t k) {
  tnode **pp = &t;
  while (*pp && (*pp)->key != k) pp = k < (*pp)->key ? &(*pp)->l : &(*pp)->r;
  tnode *d = *pp;
  if (!d) return t;
  if (d->l && d->r) {
    tnode **sp = &d->r;
    while ((*sp)->l) sp = &(*sp)->l;
    tnode *s = *sp;
    d->key = s->key;
    *sp = s->r;
    free(s);
  } else {
    *pp = d->l ? d->l : d->r;
    free(d);
  }
  return t;
}
static int height(tnode *t) {
  if (!t) return 0;
  int a = height(t->l), b = height(t->r);
  return 1 + (a > b ? a : b);
}
static void free_tree(tnode *t) {
  if (!t) return;
  free_tree(t->l);
  free_tree(t->r);
  free(t);
}

int main(void) {
  snode *list = NULL;
  for (int i = 0; i < 500; i++) list = push(list, (int32_t)(rng() % 1000));
  list = reverse(list);
  list = msort(list);
  int removed = 0, n = 0, sorted = 1;
  list = remove_if(list, 7, &removed);
  for (snode *p = list; p; p = p->next, n++) {
    if (p->next && p->next->v < p->v) sorted = 0;
    ck((uint32_t)p->v);
  }
  printf("list: %d left after removing %d, sorted %d, first %" PRId32 "\n", n, removed, sorted, list->v);
  while (list) {
    snode *d = list;
    list = list->next;
    free(d);
  }

  deque d = {0};
  int32_t acc = 0;
  for (int i = 0; i < 300; i++) {
    if (i % 3 == 0) push_front(&d, i);
    else push_back(&d, i * 2);
    if (i % 5 == 4) {
      int32_t front = pop_front(&d);
      acc += front - pop_back(&d);
    }
  }
  printf("deque: %d left, acc %" PRId32 ", head %" PRId32 ", tail %" PRId32 "\n", d.n, acc, d.head->v, d.tail->v);
  ck((uint32_t)acc);
  while (d.n) ck((uint32_t)pop_back(&d));

  tnode *t = NULL;
  for (int i = 0; i < 400; i++) t = insert(t, (int32_t)(rng() % 2000));
  int h1 = height(t);
  for (int k = 0; k < 2000; k += 3) t = delete(t, k);
  int h2 = height(t), count = 0;
  /* in-order walk with an explicit stack */
  tnode *stack[64];
  int sp = 0;
  int32_t last = -1;
  int ordered = 1;
  for (tnode *p = t; p || sp;) {
    if (p) {
      stack[sp++] = p;
      p = p->l;
    } else {
      p = stack[--sp];
      if (p->key <= last) ordered = 0;
      last = p->key;
      count++;
      ck((uint32_t)p->key);
      p = p->r;
    }
  }
  printf("tree: height %d -> %d, %d keys after deletes, in order %d, max %" PRId32 "\n", h1, h2, count, ordered, last);
  free_tree(t);
  ck_print("linked");
  return !(sorted && ordered);
}
