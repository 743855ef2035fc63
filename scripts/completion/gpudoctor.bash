# SPDX-License-Identifier: Apache-2.0
# bash completion for gpudoctor. The commands and their options come from
# the binary itself ('gpudoctor help --commands', 'help --options CMD').
_gpudoctor() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} bin=${COMP_WORDS[0]} cmd
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$("$bin" help --commands 2>/dev/null) --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    case $cmd in help)
        COMPREPLY=($(compgen -W "$("$bin" help --commands 2>/dev/null) --commands --options" -- "$cur"))
        return ;;
    esac
    case $prev in
    --sim|--from|--config|--python|--report|--record)
        COMPREPLY=($(compgen -f -- "$cur"))
        return ;;
    --fail-on) COMPREPLY=($(compgen -W "warning critical" -- "$cur")); return ;;
    --exit-codes) COMPREPLY=($(compgen -W "nagios npd npd-healthy" -- "$cur")); return ;;
    --dtype) COMPREPLY=($(compgen -W "bf16 fp16 tf32 fp32 fp8" -- "$cur")); return ;;
    esac
    if [ "$cmd" = bench ] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "pcie gemm membw stress all" -- "$cur"))
        return
    fi
    local opts
    opts=$("$bin" help --options "$cmd" 2>/dev/null | sed 's/=$//')
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}
complete -o default -F _gpudoctor gpudoctor
