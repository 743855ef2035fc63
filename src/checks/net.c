/* SPDX-License-Identifier: Apache-2.0 */
/* The node's RDMA ports (f->net): a port without link where its peers have
 * one, a port trained below its peers' rate, error counters that grow.
 *
 * Peers are ports of one kind (net_ports.h): the same link layer and model,
 * first ports with first ports. What is normal, from the real captures and
 * their threads: a pure InfiniBand port's IPoIB netdev Down (nothing to do
 * with the port), a dual-port card's second port Down/Disabled while the
 * first carries traffic (uncabled), a front-end NIC (a BlueField bond, a
 * ConnectX-6 Ethernet) beside the training NICs at another rate. What is a
 * fault: one of eight rail NICs Down/Disabled while its seven peers are
 * Active (gpud's "some down" H100 capture), a port at 100 of 200 Gb/s. */
#include "checks_internal.h"
#include "gpudoctor/net.h"
#include "net_ports.h"

/* Peers of (d, p) that are active, the fastest of their rates, and how many
 * ports of that kind the node has, (d, p) and dead ones included. */
static size_t active_peers(const gd_net_facts *n, const gd_net_dev *d, const gd_net_port *p, double *max_rate,
                           size_t *kind_ports)
{
    size_t count = 0;
    *max_rate = 0;
    *kind_ports = 1;
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            const gd_net_dev *od = &n->devs[i];
            const gd_net_port *op = &od->ports[k];
            if (op == p || !gd_net_same_kind(d, p, od, op))
                continue;
            ++*kind_ports;
            if (!gd_net_port_active(op))
                continue;
            count++;
            if (gd_ok(op->rate_gbps))
                *max_rate = fmax(*max_rate, op->rate_gbps.v);
        }
    return count;
}

static const char *link_word(gd_link_layer l)
{
    return l == GD_LINK_INFINIBAND ? "InfiniBand" : l == GD_LINK_ETHERNET ? "RoCE" : "RDMA";
}

static json_t *port_evidence(const gd_facts *f, const gd_net_dev *d, const gd_net_port *p)
{
    char st[48];
    json_t *ev = json_object();
    json_object_set_new(ev, "device", json_string(d->name));
    json_object_set_new(ev, "port", json_integer(p->port));
    json_object_set_new(ev, "state", json_string(gd_net_port_state_text(p, st, sizeof st)));
    json_object_set_new(ev, "link_layer", json_string(link_word(p->link_layer)));
    if (d->ca_type[0])
        json_object_set_new(ev, "ca_type", json_string(d->ca_type));
    if (d->bdf[0])
        json_object_set_new(ev, "bdf", json_string(d->bdf));
    if (p->netdev[0])
        json_object_set_new(ev, "netdev", json_string(p->netdev));
    if (gd_ok(p->rate_gbps))
        json_object_set_new(ev, "rate_gbps", json_real(p->rate_gbps.v));
    json_object_set_new(ev, "source", json_string(gd_net_dev_source(f, d)));
    return ev;
}

void gd_check_net_port_down(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    if (!gd_net_devices_read(f, self->id, out))
        return;
    const gd_net_facts *n = f->net;
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            const gd_net_dev *d = &n->devs[i];
            const gd_net_port *p = &d->ports[k];
            double max_rate;
            size_t kind_ports, peers = active_peers(n, d, p, &max_rate, &kind_ports);
            if (!gd_net_port_dead(p) || peers == 0)
                continue;
            /* Several active rails beside it: a training NIC lost. One or
             * two: perhaps a spare never cabled. */
            gd_severity sev = peers >= GD_NET_RAILS_MIN ? GD_SEV_CRITICAL : GD_SEV_WARNING;
            char st[48], lost[96] = "";
            gd_net_port_state_text(p, st, sizeof st);
            json_t *ev = port_evidence(f, d, p);
            json_object_set_new(ev, "active_peers", json_integer((json_int_t)peers));
            double impact = NAN;
            if (max_rate > 0) {
                /* It would run at its peers' rate: that much of the kind's bandwidth is gone. */
                double total = max_rate * (double)kind_ports;
                impact = 100.0 * max_rate / total;
                json_object_set_new(ev, "lost_gbps", json_real(max_rate));
                json_object_set_new(ev, "of_gbps", json_real(total));
                snprintf(lost, sizeof lost, ": %.0f of %.0f Gb/s of the node's %s bandwidth lost", max_rate, total,
                         link_word(p->link_layer));
            }
            char summary[64];
            snprintf(summary, sizeof summary, "%s port %d %s", d->name, p->port,
                     p->phys == GD_PORT_PHYS_POLLING    ? "Polling"
                     : p->phys == GD_PORT_PHYS_DISABLED ? "Disabled"
                     : p->state == GD_PORT_INIT         ? "Init"
                     : p->state == GD_PORT_ARMED        ? "Armed"
                                                        : "Down");
            json_object_set_new(ev, "summary", json_string(summary));
            char fix[720];
            snprintf(fix, sizeof fix,
                     "%s port %d carries no traffic while %zu %s of its kind are Active. %s Check the cable and "
                     "transceiver seating on both ends and the switch port ('ibstat %s', 'mlxlink -d %s', the "
                     "switch's port log); a port set Disabled is re-enabled with 'ibportstate' (InfiniBand) or "
                     "'ip link set %s up' (RoCE). Until it is back, jobs on this node route that rail's traffic "
                     "through another NIC%s.",
                     d->name, p->port, peers, peers == 1 ? "port" : "ports",
                     p->phys == GD_PORT_PHYS_POLLING    ? "Polling: the port looks for a peer and finds none (a cable "
                                                          "out, or the switch port down)."
                     : p->phys == GD_PORT_PHYS_DISABLED ? "Disabled: the port is switched off (administratively, or "
                                                          "by the firmware after errors) or has no cable."
                     : p->state == GD_PORT_INIT || p->state == GD_PORT_ARMED
                         ? "Init/Armed: the link is up but no subnet manager configured the port (is opensm or the "
                           "fabric's SM running, does it see this port: 'sminfo', 'ibnetdiscover')."
                         : "",
                     d->name, d->name, p->netdev[0] ? p->netdev : "NETDEV",
                     sev == GD_SEV_CRITICAL ? "; drain the node until it is repaired"
                                            : "; if it is a spare never cabled, nothing to do");
            gd_finding_add(out, self->id, sev, GD_NO_GPU, ev, impact, fix,
                           "%s port %d is %s while %zu %s%s%s %s Active%s", d->name, p->port, st, peers, d->ca_type,
                           d->ca_type[0] ? " " : "", link_word(p->link_layer), peers == 1 ? "peer is" : "peers are",
                           lost);
        }
}

void gd_check_net_port_rate_low(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    if (!gd_net_devices_read(f, self->id, out))
        return;
    const gd_net_facts *n = f->net;
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            const gd_net_dev *d = &n->devs[i];
            const gd_net_port *p = &d->ports[k];
            /* A port without link reports a placeholder rate (10, 40): net.port_down's. */
            if (!gd_net_port_active(p) || !gd_ok(p->rate_gbps))
                continue;
            double max_rate;
            size_t kind_ports, peers = active_peers(n, d, p, &max_rate, &kind_ports);
            if (peers == 0 || !(p->rate_gbps.v < max_rate))
                continue;
            double total = max_rate * (double)kind_ports, lost = max_rate - p->rate_gbps.v;
            json_t *ev = port_evidence(f, d, p);
            json_object_set_new(ev, "peer_rate_gbps", json_real(max_rate));
            json_object_set_new(ev, "lost_gbps", json_real(lost));
            json_object_set_new(ev, "of_gbps", json_real(total));
            if (p->rate_text[0])
                json_object_set_new(ev, "rate_text", json_string(p->rate_text));
            char fix[640];
            snprintf(fix, sizeof fix,
                     "%s port %d trained at %.0f Gb/s where its peers run at %.0f: a cable, transceiver or switch "
                     "port that negotiated down (fewer lanes or a lower speed). Look at 'mlxlink -d %s -p %d' "
                     "(speed, width, and the physical counters), reseat or replace the cable and transceiver, and "
                     "compare the switch port's configuration. NCCL spreads a collective over every rail: the slow "
                     "one holds the others back.",
                     d->name, p->port, p->rate_gbps.v, max_rate, d->name, p->port);
            gd_finding_add(out, self->id, GD_SEV_WARNING, GD_NO_GPU, ev, 100.0 * lost / total, fix,
                           "%s port %d runs at %.0f of %.0f Gb/s like its %zu %s %s: %.0f of %.0f Gb/s of the "
                           "node's %s bandwidth lost",
                           d->name, p->port, p->rate_gbps.v, max_rate, peers, link_word(p->link_layer),
                           peers == 1 ? "peer" : "peers", lost, total, link_word(p->link_layer));
        }
}

/* The counters that say a link is unwell, how much growth within a window
 * is worth a word, and how bad it is. Thresholds: IBTA's link error
 * counters should not move at all on a healthy link (ibqueryerrors and NHC
 * report any growth of SymbolErrorCounter, LinkDownedCounter,
 * LinkErrorRecoveryCounter); discards and out-of-buffer also grow under
 * congestion, so only a steady flow of them is reported. */
static const struct {
    gd_port_counter c;
    const char *name;
    double min_growth;
    gd_severity sev;
} counter_rules[] = {
    {GD_PC_LINK_DOWNED, "link_downed", 1, GD_SEV_CRITICAL},
    {GD_PC_LINK_ERROR_RECOVERY, "link_error_recovery", 1, GD_SEV_WARNING},
    {GD_PC_SYMBOL_ERROR, "symbol_error", GD_NET_SYMBOL_ERRORS_MIN, GD_SEV_WARNING},
    {GD_PC_RCV_ERRORS, "port_rcv_errors", GD_NET_SYMBOL_ERRORS_MIN, GD_SEV_WARNING},
    {GD_PC_LOCAL_LINK_INTEGRITY, "local_link_integrity_errors", 1, GD_SEV_WARNING},
    {GD_PC_EXCESSIVE_OVERRUN, "excessive_buffer_overrun_errors", 1, GD_SEV_WARNING},
    {GD_PC_RCV_REMOTE_PHYS, "port_rcv_remote_physical_errors", GD_NET_SYMBOL_ERRORS_MIN, GD_SEV_WARNING},
    {GD_PC_XMIT_DISCARDS, "port_xmit_discards", GD_NET_DISCARDS_MIN, GD_SEV_WARNING},
    {GD_PC_OUT_OF_SEQUENCE, "out_of_sequence", GD_NET_DISCARDS_MIN, GD_SEV_WARNING},
    {GD_PC_PACKET_SEQ_ERR, "packet_seq_err", GD_NET_DISCARDS_MIN, GD_SEV_WARNING},
    {GD_PC_LOCAL_ACK_TIMEOUT, "local_ack_timeout_err", GD_NET_SYMBOL_ERRORS_MIN, GD_SEV_WARNING},
};

void gd_check_net_port_errors(const gd_check *self, const gd_facts *f, gd_findings *out)
{
    if (!gd_net_devices_read(f, self->id, out))
        return;
    const gd_net_facts *n = f->net;
    bool window = false, counted = false;
    for (size_t i = 0; i < n->dev_count; i++)
        for (size_t k = 0; k < n->devs[i].port_count; k++) {
            const gd_net_dev *d = &n->devs[i];
            const gd_net_port *p = &d->ports[k];
            for (size_t r = 0; r < sizeof counter_rules / sizeof *counter_rules; r++)
                counted |= gd_ok(p->counters_last[counter_rules[r].c]);
            /* One reading (a capture) holds totals since boot: no growth to see. */
            if (!(p->counter_span_s > 0))
                continue;
            window = true;
            json_t *grew = json_object();
            gd_severity sev = GD_SEV_INFO;
            char names[256] = "";
            size_t used = 0;
            for (size_t r = 0; r < sizeof counter_rules / sizeof *counter_rules; r++) {
                gd_value a = p->counters_first[counter_rules[r].c], b = p->counters_last[counter_rules[r].c];
                if (!gd_ok(a) || !gd_ok(b) || b.v - a.v < counter_rules[r].min_growth)
                    continue;
                json_object_set_new(grew, counter_rules[r].name, json_real(b.v - a.v));
                sev = counter_rules[r].sev > sev ? counter_rules[r].sev : sev;
                if (used < sizeof names)
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s +%.0f", used ? ", " : "",
                                             counter_rules[r].name, b.v - a.v);
            }
            if (json_object_size(grew) == 0) {
                json_decref(grew);
                continue;
            }
            json_t *ev = port_evidence(f, d, p);
            json_object_set_new(ev, "grew", grew);
            json_object_set_new(ev, "span_s", json_real(p->counter_span_s));
            char fix[600];
            snprintf(fix, sizeof fix,
                     "Error counters that move on a link mean a bad cable, transceiver or connector, or a switch "
                     "port in trouble: %s. Look at 'mlxlink -d %s -p %d -c' (the physical BER and the effective "
                     "errors), reseat or replace the cable and transceiver, and check the switch side. A link "
                     "that went down drops NCCL's connections over it (\"Got completion with error 12\").",
                     sev == GD_SEV_CRITICAL ? "the link went down during the window"
                                            : "retransmissions slow every transfer over it",
                     d->name, p->port);
            gd_finding_add(out, self->id, sev, GD_NO_GPU, ev, NAN, fix,
                           "%s port %d: error counters grew in %.0f s (%s)", d->name, p->port, p->counter_span_s,
                           names);
        }
    if (!window && n->dev_count > 0)
        gd_skip_add(out, self->id, GD_NO_GPU, "%s",
                    counted ? "the port counters were read once (a capture): a total since boot says nothing of growth"
                            : "the port counters were not read");
}
