// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * empty.bpf.c - a uprobe program that does nothing: attached to queueBuffer it costs
 * exactly the uprobe trap plus entering and leaving a BPF program, the floor framerec's
 * probe is compared against in probe_cost.sh.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("uprobe")
int empty(void *ctx)
{
	return 0;
}
