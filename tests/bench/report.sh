#!/bin/bash
# Turn guest.sh's "R KEY VALUE" lines into tables or JSON.
#
#   report.sh table KERNEL FILE          the tables of one kernel
#   report.sh json KERNEL FILE [...]     {"6.1": {...}, "6.12": {...}}
set -uo pipefail

table() {
	awk -v kern="$1" '
	$1 == "R" {
		k = $2
		$1 = ""
		$2 = ""
		sub(/^ +/, "")
		v[k] = $0
	}
	function g(k) { return (k in v) ? v[k] : "-" }
	function mib(k) { return (k in v) ? sprintf("%.1f", v[k] / 1024) : "-" }
	function dq(s) { gsub(/"/, "", s); return s }
	function row(sec, k, label, startup) {
		if (!((sec "." k ".ns_per_call") in v))
			return
		printf "%-15s %8s %8s %7s %17s %6s %9s %9s %8s %10s\n", label,
			g(sec "." k ".ns_per_call"), g(sec "." k ".ns_added"),
			g(sec "." k ".ratio_floor"),
			((sec "." k ".generated") in v) ? g(sec "." k ".delivered") "/" g(sec "." k ".generated") : "-",
			g(sec "." k ".drops_reported"), g(sec "." k ".shortfall"),
			startup, mib(sec "." k ".rss_peak_kb"), g(sec "." k ".consumer_events_per_s")
	}
	# A section of rows beside the empty floor: title, then one row per key.
	function floor_section(sec, title, keys,    ks, n, i) {
		print title
		hdr()
		printf "%-15s %8s\n", "no tracing", g(sec ".base.ns_per_call")
		row(sec, "floor", "empty floor", "-")
		n = split(keys, ks, " ")
		for (i = 1; i <= n; i++)
			row(sec, ks[i], ks[i], "-")
	}
	# Start-up rows of one section (startup, startup_icount) and their ratios.
	function startup_section(sec, unit,    ks, n, i) {
		if (!((sec ".ksnoop-fentry.first_event_ms") in v))
			return
		printf "\n%s, exec to the first event, %s (medians of %s rounds after a warm-up):\n",
			sec, unit, g(sec ".rounds")
		n = split("ksnoop-fentry ksnoop-before ksnoop-kprobe ksnoop-json reference bpftrace", ks, " ")
		for (i = 1; i <= n; i++)
			if ((sec "." ks[i] ".first_event_ms") in v)
				printf "%-15s %8s\n", ks[i], g(sec "." ks[i] ".first_event_ms")
		if ((sec ".ratio_bpftrace_to_ksnoop_fentry") in v && v[sec ".ratio_bpftrace_to_ksnoop_fentry"] + 0 > 0)
			printf "%s: bpftrace takes %sx as long as ksnoop -b fentry to its first event (target >= 4)\n",
				sec, g(sec ".ratio_bpftrace_to_ksnoop_fentry")
		if ((sec ".reference.delivered") in v)
			printf "%s: the reference ksnoop attached but delivered no event: no ratio\n", sec
		if ((sec ".ratio_fentry_to_reference") in v)
			printf "%s: ksnoop -b fentry takes %sx, -b kprobe %sx as long as the reference ksnoop (target <= 0.8)\n",
				sec, g(sec ".ratio_fentry_to_reference"), g(sec ".ratio_kprobe_to_reference")
	}
	# One target: label, measured value ("" when its section did not
	# run: no line), and the most it may be.
	function tgt(label, val, lim) {
		if (val == "" || val == "null")
			return
		printf "  %-58s %9s   <= %-7s %s\n", label, val, lim, val + 0 <= lim + 0 ? "met" : "NOT met"
	}
	# A tool that never got ready records -1: no ratio then, rather than a
	# negative one that would pass any "at most" target.
	function ratio(a, b, digits) {
		if (digits == "")
			digits = 2
		return ((a in v) && (b in v) && v[a] + 0 > 0 && v[b] + 0 > 0) ? sprintf("%." digits "f", v[a] / v[b]) : ""
	}
	function val(k) { return (k in v) ? v[k] : "" }
	function targets(    s, b, pre, bt) {
		printf "\nTargets (issue 18), measured here:\n"
		tgt("per call, trace -b fentry, paused: x the empty floor",
			val("percall.ksnoop-fentry-paused.ratio_floor"), "3.0")
		tgt("per call, trace -b fentry, paused: x the event floor",
			ratio("percall.ksnoop-fentry-paused.ns_added", "percall.floor-events.ns_added"), "1.2")
		if ("percall.ksnoop-fentry-paused.generated" in v)
			tgt("burst of " g("percall.burst_calls") " calls: events not delivered",
				val("percall.ksnoop-fentry-paused.shortfall"), "0")
		tgt("per call, trace -b kprobe, paused: x the kprobe event floor",
			val("percall.ksnoop-kprobe-paused.ratio_kprobe_event_floor"), "1.2")
		if ("percall.floor-events-dump.ratio_floor" in v) {
			printf "  %-58s %9s\n", "  (the dump floor itself: x the empty floor)",
				g("percall.floor-events-dump.ratio_floor")
			tgt("per call, trace -b fentry, paused: x the dump floor",
				val("percall.ksnoop-fentry-paused.ratio_dump_floor"), "1.2")
			tgt("per call, trace -b kprobe, paused: x the kprobe dump floor",
				val("percall.ksnoop-kprobe-paused.ratio_kprobe_dump_floor"), "1.2")
		}
		split("startup startup_icount", ss, " ")
		for (s = 1; s <= 2; s++) {
			tgt(ss[s] ": -b fentry / the reference ksnoop",
				val(ss[s] ".ratio_fentry_to_reference"), "0.8")
			tgt(ss[s] ": -b kprobe / the reference ksnoop",
				val(ss[s] ".ratio_kprobe_to_reference"), "0.8")
			tgt(ss[s] ": -b fentry / bpftrace",
				ratio(ss[s] ".ksnoop-fentry.first_event_ms", ss[s] ".bpftrace.first_event_ms"), "0.25")
		}
		for (key in v) {
			if (key !~ /^attach\.auto\.n[0-9]+\.attach_ms$/)
				continue
			split(key, p, ".")
			if (substr(p[3], 2) + 0 < 500)
				continue
			pre = "attach.auto." p[3]
			bt = "attach.bpftrace." p[3]
			if (v[pre ".multi"] + 0 > 0) {
				tgt("attach " substr(p[3], 2) " named functions (kprobe.multi), s",
					sprintf("%.1f", v[pre ".attach_ms"] / 1000), "20")
				tgt("detach " substr(p[3], 2) " named functions (kprobe.multi), s",
					sprintf("%.1f", v[pre ".detach_ms"] / 1000), "20")
			} else if ((bt ".attach_ms") in v) {
				tgt("attach " substr(p[3], 2) " functions: ksnoop auto / bpftrace",
					ratio(pre ".attach_ms", bt ".attach_ms"), "1")
			} else if ((bt ".budget_s") in v) {
				# bpftrace had not attached when its time ran out: the
				# ratio is at most the ksnoop time over that budget.
				tgt(sprintf("attach %d: auto / bpftrace (none in %s s), at most",
					substr(p[3], 2), v[bt ".budget_s"]),
					sprintf("%.2f", v[pre ".attach_ms"] / 1000 / v[bt ".budget_s"]), "1")
			}
		}
		if ("percall.ksnoop-fentry.rss_peak_kb" in v)
			tgt("peak RSS of the default trace, MiB",
				sprintf("%.1f", v["percall.ksnoop-fentry.rss_peak_kb"] / 1024), "20")
		tgt("hist __do_sys_getppid(return): x the empty floor", val("agg.ksnoop-hist-ret.ratio_floor"), "1.5")
		tgt("count __do_sys_getppid: x the empty floor", val("agg.ksnoop-count.ratio_floor"), "1.5")
		if (("agg.ksnoop-kstack.ns_added" in v) && ("agg.floor.ns_added" in v)) {
			bt = "-"
			if ("agg.bpftrace-kstack.ns_added" in v)
				bt = sprintf("%.0f", v["agg.bpftrace-kstack.ns_added"] - v["agg.floor.ns_added"])
			printf "  %-58s %9.0f   (bpftrace @[kstack]: %s)\n",
				"count --by kstack: added beyond the floor, insns",
				v["agg.ksnoop-kstack.ns_added"] - v["agg.floor.ns_added"], bt
		}
		tgt("ktrace: added per syscall, over that of strace", ratio("ktrace.ktrace_ns_per_syscall", "ktrace.strace_ns_per_syscall", 4), "0.025")
		tgt("ktrace: bytes per syscall in the file", val("ktrace.bytes_per_syscall"), "96")
		if ("boot_s.host" in v)
			printf "  %-58s %9s\n", "host seconds of this part", g("boot_s.host")
		if ("boot_s.icount" in v || "boot_s.real" in v)
			printf "  %-58s %9s   (the whole run: at most 30 min)\n", "host seconds: icount boot, real-time boot",
				g("boot_s.icount") ", " g("boot_s.real")
	}
	function hdr() {
		printf "%-15s %8s %8s %7s %17s %6s %9s %9s %8s %10s\n", "", "ns/call", "added",
			"x floor", "delivered/gen.", "drops", "shortfall", "start ms", "RSS MiB", "consumer/s"
	}
	END {
		printf "\n== %s: kernel %s, clocksource %s, %s CPUs\n", kern, dq(g("kernel")),
			dq(g("clocksource")), g("cpus")
		if ("icount_sections" in v)
			printf "Sections %s: the guest clock counts instructions, so each ns is one guest instruction\n",
				dq(g("icount_sections"))
		if ("percall.calls" in v) {
			printf "\nPer call: %s, %s getppid() calls per run, medians of the rounds\n",
				dq(g("percall.function")), g("percall.calls")
			printf "Reader running (output to a file on tmpfs)\n"
			hdr()
			printf "%-15s %8s\n", "no tracing", g("percall.base.ns_per_call")
			row("percall", "floor", "empty floor", "-")
			n = split("ksnoop-fentry ksnoop-before ksnoop-kprobe ksnoop-json bpftrace", ks, " ")
			for (i = 1; i <= n; i++)
				row("percall", ks[i], ks[i], g("startup." ks[i] ".first_event_ms"))
			printf "Reader paused (SIGSTOP) during the loop: the BPF side alone, and the ring\n"
			if ("percall.burst_calls" in v)
				printf "(ksnoop-fentry and bpftrace: a burst of %s calls)\n", g("percall.burst_calls")
			hdr()
			row("percall", "floor", "empty floor", "-")
			row("percall", "floor-events", "event floor", "-")
			row("percall", "floor-kprobe", "kprobe floor", "-")
			row("percall", "floor-kprobe-events", "kprobe events", "-")
			row("percall", "floor-events-dump", "dump floor", "-")
			row("percall", "floor-kprobe-events-dump", "kprobe dump", "-")
			for (i = 1; i <= n; i++)
				row("percall", ks[i] "-paused", ks[i], "-")
			if ("percall.ksnoop-kprobe-paused.ratio_kprobe_event_floor" in v)
				printf "ksnoop -b kprobe: %sx the kprobe event floor, %sx with the reader running (target <= 1.2)\n",
					g("percall.ksnoop-kprobe-paused.ratio_kprobe_event_floor"),
					g("percall.ksnoop-kprobe.ratio_kprobe_event_floor")
			if ("percall.dump_bytes" in v)
				printf "The dump floors also copy the %s bytes the default trace dumps at entry:\n" \
					"ksnoop -b fentry %sx the dump floor, -b kprobe %sx the kprobe dump floor (target <= 1.2)\n",
					g("percall.dump_bytes"), g("percall.ksnoop-fentry-paused.ratio_dump_floor"),
					g("percall.ksnoop-kprobe-paused.ratio_kprobe_dump_floor")
		}
		startup_section("startup", "ms")
		startup_section("startup_icount", "guest ms (million instructions, one vCPU)")
		if ("predicate.calls" in v)
			floor_section("predicate",
				sprintf("\nPredicate rejecting 99%%: write_null(count == 7), %s write()s, %s match per run",
					g("predicate.calls"), g("predicate.matching")),
				"ksnoop-fentry ksnoop-kprobe bpftrace")
		if ("agg.calls" in v)
			floor_section("agg",
				sprintf("\nAggregation in the kernel: __do_sys_getppid, %s getppid() calls per run",
					g("agg.calls")),
				"ksnoop-hist-ret bpftrace-hist-ret ksnoop-count bpftrace-count ksnoop-latency ksnoop-kstack bpftrace-kstack")
		if ("spans.calls" in v)
			floor_section("spans",
				sprintf("\nSpans: __do_sys_getppid to __task_pid_nr_ns by task, %s getppid() calls per run",
					g("spans.calls")),
				"ksnoop-span-hist bpftrace-span-hist ksnoop-span-pid")
		if ("user.calls" in v)
			floor_section("user",
				sprintf("\nUser space: uprobes on bench_ucall(i), %s calls per run",
					g("user.calls")),
				"ksnoop-count bpftrace-count ksnoop-count-arg bpftrace-count-arg ksnoop-text ksnoop-json bpftrace-printf")
		if ("user.burst_calls" in v) {
			printf "Reader paused (SIGSTOP): a burst of %s calls, the BPF side alone\n", g("user.burst_calls")
			hdr()
			row("user", "ksnoop-text-paused", "ksnoop-text", "-")
			row("user", "ksnoop-json-paused", "ksnoop-json", "-")
			row("user", "bpftrace-printf-paused", "bpftrace-printf", "-")
		}
		if ("tracepoint.calls" in v)
			floor_section("tracepoint",
				sprintf("\nTracepoints: raw_syscalls:sys_enter of getppid, %s calls per run",
					g("tracepoint.calls")),
				"ksnoop-count bpftrace-count ksnoop-json bpftrace-printf")
		if ("profile.seconds" in v) {
			printf "\nCPU sampling at rest: profile:99 on an idle guest, %s s each, shares of all CPUs\n",
				g("profile.seconds")
			printf "%-15s %9s %9s %10s %10s\n", "tracer", "BPF %", "user %", "samples/s", "ns/sample"
			n = split("ksnoop bpftrace", ks, " ")
			for (i = 1; i <= n; i++)
				if (("profile." ks[i] ".bpf_pct") in v)
					printf "%-15s %9s %9s %10s %10s\n", ks[i], g("profile." ks[i] ".bpf_pct"),
						g("profile." ks[i] ".user_pct"), g("profile." ks[i] ".samples_per_s"),
						g("profile." ks[i] ".ns_per_sample")
		}
		if ("serve.series" in v)
			printf "\nserve: a scrape of %s series (%s bytes): %s ms of ksnoop CPU each, over %s scrapes\n",
				g("serve.series"), g("serve.bytes"), g("serve.cpu_ms_per_scrape"), g("serve.scrapes")
		if ("wherefrom.calls" in v)
			floor_section("wherefrom",
				sprintf("\nWhere from: __do_sys_getppid, %s getppid() calls per run",
					g("wherefrom.calls")),
				"ksnoop-return ksnoop-kstack bpftrace-kstack ksnoop-errors ksnoop-graph")
		if ("throughput.skb-text.events" in v || "throughput.scalar-text.events" in v) {
			printf "\nConsumer throughput to /dev/null (ksnoop stopped while events queue)\n"
			printf "%-13s %9s %7s %8s %10s\n", "case", "events", "drops", "CPU s", "events/s"
			n = split("skb-text skb-json scalar-text scalar-json", ks, " ")
			for (i = 1; i <= n; i++)
				if (("throughput." ks[i] ".events") in v)
					printf "%-13s %9s %7s %8s %10s\n", ks[i], g("throughput." ks[i] ".events"),
						g("throughput." ks[i] ".drops_reported"),
						g("throughput." ks[i] ".consumer_cpu_s"),
						g("throughput." ks[i] ".events_per_s")
		}
		if ("attach.candidates" in v) {
			printf "\nAttach (exec to header) and detach (SIGINT to exit), ms\n"
			printf "%-10s %8s %10s %10s %8s %6s\n", "backend", "funcs", "attach", "detach", "RSS MiB", "multi"
			n = split("fentry kprobe auto bpftrace", bs, " ")
			for (i = 1; i <= n; i++) {
				m = 0
				for (key in v) {
					if (key !~ ("^attach\\." bs[i] "\\.n[0-9]+\\.(attach_ms|error)$"))
						continue
					split(key, p, ".")
					c[++m] = substr(p[3], 2) + 0
				}
				for (x = 2; x <= m; x++)	# insertion sort
					for (y = x; y > 1 && c[y - 1] > c[y]; y--) {
						t = c[y]; c[y] = c[y - 1]; c[y - 1] = t
					}
				for (x = 1; x <= m; x++) {
					pre = "attach." bs[i] ".n" c[x]
					printf "%-10s %8s %10s %10s %8s %6s%s\n", bs[i], c[x], g(pre ".attach_ms"),
						g(pre ".detach_ms"), mib(pre ".rss_kb"),
						(pre ".multi") in v ? v[pre ".multi"] : "",
						(pre ".error") in v ? "  " dq(v[pre ".error"]) : ""
				}
			}
			for (key in v) {
				if (key !~ /^attach\.bpftrace\.n[0-9]+\.attach_ms$/)
					continue
				split(key, p, ".")
				pre = "attach.auto." p[3]
				if (!((pre ".attach_ms") in v) || v[pre ".attach_ms"] <= 0)
					continue
				dr = v[pre ".detach_ms"] > 0 ? v["attach.bpftrace." p[3] ".detach_ms"] / v[pre ".detach_ms"] : 0
				printf "attach of %s: bpftrace / ksnoop auto = %.2f, detach %.2f\n", substr(p[3], 2),
					v[key] / v[pre ".attach_ms"], dr
			}
			if ("attach.glob.attach_ms" in v)
				printf "%-10s %8s %10s %10s  (glob acpi_ut_*)\n", dq(g("attach.glob.backend")),
					g("attach.glob.functions"), g("attach.glob.attach_ms"), g("attach.glob.detach_ms")
		}
		if ("attach.count_glob.ksnoop_attach_ms" in v) {
			printf "\nA count over a glob: exec to attached, SIGINT to exit, ms\n"
			printf "%-10s %8s %10s %10s  (ksnoop count acpi_ut_*)\n", "ksnoop",
				g("attach.count_glob.functions"), g("attach.count_glob.ksnoop_attach_ms"),
				g("attach.count_glob.ksnoop_detach_ms")
			if (v["attach.count_glob.bpftrace_attach_ms"] + 0 < 0)
				printf "%-10s %8s %10s  (bpftrace count() on kprobe:acpi_ut_*: not attached within %s s)\n",
					"bpftrace", g("attach.count_glob.functions"), "-",
					g("attach.count_glob.bpftrace_budget_s")
			else
				printf "%-10s %8s %10s %10s  (bpftrace count() on kprobe:acpi_ut_*)\n", "bpftrace",
					g("attach.count_glob.functions"), g("attach.count_glob.bpftrace_attach_ms"),
					g("attach.count_glob.bpftrace_detach_ms")
		}
		if ("ktrace.plain_s" in v) {
			printf "\nktrace: dd if=/dev/zero of=/dev/null bs=1 count=%s, seconds\n", g("ktrace.dd_count")
			printf "%-24s %9s %12s\n", "", "wall", "ns/syscall"
			printf "%-24s %9s\n", "plain", g("ktrace.plain_s")
			printf "%-24s %9s %12s   (%s records, %s bytes per syscall; target <= 96)\n",
				"ksnoop ktrace -t c", g("ktrace.ktrace_s"), g("ktrace.ktrace_ns_per_syscall"),
				g("ktrace.records"), g("ktrace.bytes_per_syscall")
			printf "%-24s %9s %12s   (count=%s)\n", "strace -f -o /dev/null", g("ktrace.strace_s"),
				g("ktrace.strace_ns_per_syscall"), g("ktrace.strace_dd_count")
			printf "added per syscall, ktrace/strace = %s (target <= 1/40 = 0.025)\n",
				ratio("ktrace.ktrace_ns_per_syscall", "ktrace.strace_ns_per_syscall", 4)
		}
		targets()
		for (key in v)
			if (key ~ /\.error$/ && key !~ /^attach/)
				printf "error: %s %s\n", key, v[key]
	}' "$2"
}

# Nested JSON from dotted keys (sorted, so each object's keys are
# contiguous); values are JSON literals already, or quoted here.
json_one() {
	awk '$1 == "R" { k = $2; $1 = ""; $2 = ""; sub(/^ +/, ""); print k "\t" $0 }' "$1" |
		sort -t "$(printf '\t')" -k1,1 -s |
		awk -F '\t' '
		function ind(n) { return sprintf("%" (2 * n + 2) "s", "") }
		function item(level) { printf "%s\n", has[level] ? "," : ""; has[level] = 1 }
		# Numeric from the start: has[d] with d unset would be has[""], not has[0].
		BEGIN { d = 0 }
		{
			n = split($1, p, ".")
			c = 0
			while (c < d && c < n - 1 && p[c + 1] == cur[c + 1])
				c++
			while (d > c) {
				printf "\n%s}", ind(d)
				d--
			}
			for (i = c + 1; i < n; i++) {
				item(i - 1)
				printf "%s\"%s\": {", ind(i), p[i]
				cur[i] = p[i]
				has[i] = 0
				d = i
			}
			val = $2
			if (val !~ /^(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?|null|true|false|".*")$/)
				val = "\"" val "\""
			item(d)
			printf "%s\"%s\": %s", ind(n), p[n], val
		}
		END {
			while (d > 0) {
				printf "\n%s}", ind(d)
				d--
			}
			printf "\n"
		}'
}

json() {
	local sep=""
	echo "{"
	while [ $# -ge 2 ]; do
		printf '%s  "%s": {' "$sep" "$1"
		json_one "$2"
		printf '  }'
		sep=$',\n'
		shift 2
	done
	printf '\n}\n'
}

case ${1:-} in
table) table "$2" "$3" ;;
json) shift; json "$@" ;;
*) echo "usage: report.sh table KERNEL FILE | json KERNEL FILE..." >&2; exit 2 ;;
esac
