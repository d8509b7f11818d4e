#!/bin/bash
B=build/bench
cat /sys/devices/system/clocksource/clocksource0/current_clocksource
$B/bench getppid 100000; $B/bench getppid 100000
ip link set lo up
timeout 60 bpftrace -e 'kfunc:__do_sys_getppid { printf("%llu %u %u __do_sys_getppid __unused=%p\n", nsecs, cpu, tid, args->__unused); exit(); } kretfunc:__do_sys_getppid { printf("%llu %u %u ret=%ld\n", nsecs, cpu, tid, retval); }' & sleep 20; $B/bench getppid 3; wait
timeout 60 ./ksnoop trace 'write_null(count == 7)' & sleep 8; $B/bench write-null 300 100; sleep 1; kill -INT %1; wait
timeout 60 ./ksnoop trace 'ksys_write(fd, count)' & sleep 8; $B/bench write-null 3 100; sleep 1; kill -INT %1; wait
timeout 60 ./ksnoop -j trace 'ip_send_skb' > /tmp/j.out & sleep 8; $B/bench udp-send 150 1; sleep 1; kill -INT %1; wait; head -c 3000 /tmp/j.out; wc -c /tmp/j.out
timeout 60 ./ksnoop trace 'ip_send_skb' > /tmp/j.out & sleep 8; $B/bench udp-send 150 1; sleep 1; kill -INT %1; wait; wc /tmp/j.out
grep -cE '^acpi_(ut|ns|ex|ds|ps|rs|tb|ev|hw)_' /sys/kernel/tracing/available_filter_functions
