// A struct with a pointer to its own type (OpTypeForwardPointer): spirt
// reads it only after structurize's break_type_cycles.
typedef struct node {
    int value;
    global struct node *next;
} node;

kernel void link_and_sum(global node *nodes, int n, global int *out) {
    for (int i = 0; i < n; i++) {
        nodes[i].value = i * 3;
        nodes[i].next = i + 1 < n ? &nodes[i + 1] : 0;
    }
    int sum = 0;
    for (global node *p = nodes; p; p = p->next)
        sum += p->value;
    *out = sum;
}
