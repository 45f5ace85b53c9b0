#pragma once

#include <QString>

#include <sys/resource.h>

// What the benchmarks over simulated hosts (bench_scale, bench_fleet) launch: a multi-node
// session of one master and `workers` workers, each asking for almost nothing, and the CPU time
// they read their own cost from.
inline QString simulatedSessionTemplate(const QString &name, int workers, const QString &policy)
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: multi-node
failurePolicy:
  action: %3
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.01, memory: 8m}
  - name: worker
    count: %2
    max: 100000
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.01, memory: 8m}
)")
        .arg(name)
        .arg(workers)
        .arg(policy);
}

// CPU seconds (user + system) of this process so far: the machine may be shared, and wall
// time then counts the waits for a core too.
inline double processCpuSeconds()
{
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}
