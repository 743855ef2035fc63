#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Turns node-problem-detector's GPUProblem condition (set by
# gpudoctor-monitor.json) into a NoSchedule taint, and lifts it: run it
# every minute or so (a CronJob whose service account may get and patch
# nodes). docs/kubernetes.md explains each case.
#   True     a critical finding (the message names it): tainted
#   Unknown  after NPD's plugin timeout ("Timeout when running plugin"): the
#            driver does not answer; tainted once that has lasted
#            GPUDOCTOR_UNKNOWN_GRACE seconds (300), since one slow run is no
#            hang. Any other Unknown (gpudoctor could not check, or the node
#            has no NVIDIA GPU) leaves the node as it is.
#   False    no critical finding: the taint, if any, is lifted
# Only nodes that match GPUDOCTOR_NODE_SELECTOR (nvidia.com/gpu.present=true).
set -u
selector=${GPUDOCTOR_NODE_SELECTOR:-nvidia.com/gpu.present=true}
taint=${GPUDOCTOR_TAINT:-gpudoctor.io/gpu-unhealthy}
grace=${GPUDOCTOR_UNKNOWN_GRACE:-300}
cond='.status.conditions[?(@.type=="GPUProblem")]'
now=$(date +%s)
kubectl get nodes -l "$selector" -o jsonpath="{range .items[*]}{.metadata.name}{\"\\t\"}{$cond.status}{\"\\t\"}{$cond.lastTransitionTime}{\"\\t\"}{$cond.message}{\"\\n\"}{end}" |
    {
    status=0
    while IFS="$(printf '\t')" read -r node state since message; do
        case $state in
        True) action=taint why="$message" ;;
        Unknown)
            case $message in
            "Timeout when running plugin"*)
                age=$((now - $(date -d "$since" +%s 2>/dev/null || echo "$now")))
                if [ "$age" -ge "$grace" ]; then
                    action=taint why="no answer from gpudoctor for ${age}s (the driver hangs?)"
                else
                    action=wait why="no answer from gpudoctor for ${age}s (tainted at ${grace}s)"
                fi
                ;;
            *) action=keep why="not checked: $message" ;;
            esac
            ;;
        False) action=untaint why="no critical finding" ;;
        *) action=keep why="no GPUProblem condition (is node-problem-detector running there?)" ;;
        esac
        echo "$node: $action: $why"
        case $action in
        taint) kubectl taint nodes --overwrite "$node" "$taint=true:NoSchedule" >/dev/null || status=1 ;;
        untaint) kubectl taint nodes "$node" "$taint:NoSchedule-" >/dev/null 2>&1 ;;
        esac
    done
    exit $status
    }
