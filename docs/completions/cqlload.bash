# bash completion for cqlload. Generated from the option table by
# `cqlload --generate bash`; do not edit.

_cqlload() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    COMPREPLY=()
    case $prev in
        --header)
            COMPREPLY=($(compgen -W 'true false' -- "$cur"))
            return ;;
        --null-mode)
            COMPREPLY=($(compgen -W 'null unset' -- "$cur"))
            return ;;
        --cqlsh-escapes)
            COMPREPLY=($(compgen -W 'true false' -- "$cur"))
            return ;;
        --adaptive)
            COMPREPLY=($(compgen -W 'true false' -- "$cur"))
            return ;;
        --progress)
            COMPREPLY=($(compgen -W 'auto bar log none' -- "$cur"))
            return ;;
        --password-file|--ssl-ca|--ssl-cert|--ssl-key|--cqlshrc|--credentials|--file|-f|--write-split-plan|--config-file|--split-plan|--err-file|--resume|--summary-json|--rate-file|--histogram-log)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
        --hosts|--port|--username|-u|--password|-p|--ssl-server-name|--connect-timeout|--request-timeout|--dc|--consistency|--execute|-e|--table|--columns|--keyspace|-k|--max-rows|--skip-rows|--skip-cols|--flush-interval|--store-connect-timeout|--store-timeout|--readers|--stripe-size|--repeat|--split|--split-size|--verify-buffer|--delimiter|--quote|--escape|--encoding|--max-record-bytes|--null|--datetime-format|--timezone|--decimal-sep|--thousands-sep|--bool-style|--ttl|--writetime-field|--ttl-field|--workers|--chunk-size|--ingest-rate|--min-batch-size|--max-batch-size|--max-batch-bytes|--max-in-flight|--duration|--dry-run-rows|--max-attempts|--retry-window|--max-parse-errors|--max-insert-errors|--max-error-record-bytes|--metrics-addr|--report-frequency)
            COMPREPLY=()
            return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W '--hosts --port --username -u --password -p --password-file --insecure-password-without-warning --ssl --ssl-ca --ssl-cert --ssl-key --ssl-no-verify --ssl-server-name --connect-timeout --request-timeout --dc --cqlshrc --credentials --consistency --execute -e --file -f --table --columns --keyspace -k --write-split-plan --max-rows --skip-rows --skip-cols --config-file --flush-interval --store-connect-timeout --store-timeout --readers --stripe-size --repeat --split --split-size --split-plan --verify-buffer --header --delimiter --quote --escape --encoding --max-record-bytes --null --null-mode --datetime-format --timezone --decimal-sep --thousands-sep --bool-style --cqlsh-escapes --ttl --writetime-field --ttl-field --workers --chunk-size --ingest-rate --min-batch-size --max-batch-size --max-batch-bytes --max-in-flight --adaptive --duration --dry-run --dry-run-rows --max-attempts --retry-window --max-parse-errors --max-insert-errors --err-file --max-error-record-bytes --resume --summary-json --progress --metrics-addr --count --verbose -v --version --help -h --report-frequency --rate-file --histogram-log' -- "$cur"))
        return
    fi
    if [[ $COMP_CWORD == 1 ]]; then
        COMPREPLY=($(compgen -W 'summarize' -- "$cur"))
    fi
    COMPREPLY+=($(compgen -f -- "$cur"))
}
complete -o filenames -F _cqlload cqlload
