# SPDX-License-Identifier: Apache-2.0
# bash completion for gpudoctor. The commands, their options and the values
# an option takes come from the binary itself ('gpudoctor help --commands',
# 'help --options CMD', 'help --values OPTION'): after an option that takes
# a value, only its values are offered (files, directories, words, finding
# ids, or nothing for a number), never option names.
_gpudoctor() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} bin=${COMP_WORDS[0]} cmd opts vals
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "$("$bin" help --commands 2>/dev/null) --help --version" -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    case $cmd in help)
        case $prev in
        --options) COMPREPLY=($(compgen -W "$("$bin" help --commands 2>/dev/null)" -- "$cur")); return ;;
        --values) return ;;
        esac
        COMPREPLY=($(compgen -W "$("$bin" help --commands 2>/dev/null) findings --commands --options --values" -- "$cur"))
        return ;;
    esac
    opts=$("$bin" help --options "$cmd" 2>/dev/null)
    if [[ $prev == --* ]] && printf '%s\n' "$opts" | grep -qx -- "$prev="; then
        vals=$("$bin" help --values "$prev" 2>/dev/null)
        case $vals in
        "<file>") COMPREPLY=($(compgen -f -- "$cur")) ;;
        "<dir>") COMPREPLY=($(compgen -d -- "$cur")) ;;
        "") COMPREPLY=() ;; # a number or a size: nothing to offer
        *) COMPREPLY=($(compgen -W "$vals" -- "$cur")) ;;
        esac
        return
    fi
    if [ "$cmd" = bench ] && [[ $cur != -* ]]; then
        COMPREPLY=($(compgen -W "pcie gemm membw p2p stress all" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -W "$(printf '%s\n' "$opts" | sed 's/=$//')" -- "$cur"))
}
complete -o default -F _gpudoctor gpudoctor
