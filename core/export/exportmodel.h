#pragma once

#include "common/error.h"
#include "template/clustertemplate.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace ClusterDeck {

struct ClusterPlan;

// What an export prints: the YAML, and what the admin should know about it (each also a comment
// at the top of the YAML; the CLI prints them on stderr as `warning: …`).
struct ExportOutput
{
    QString yaml;
    QStringList warnings;
};

// One role as an export writes it: the task with the role's overrides and the cluster-wide env
// and mounts already applied (the precedence of resolvePlan, without image defaults and presets).
struct ExportedRole
{
    QString name;
    int count = 0;
    int firstRank = 0; // local rank of <name>1
    TaskTemplate task; // env, ports, resources, mounts merged
};

// A template and the counts to export it with, checked and merged once for both formats.
// Pure: no files, no store.
class ExportModel
{
public:
    // `counts`: ROLE → N from `--count`; roles not named keep the template's count. An unknown
    // role or a count outside the role's min..max is an error naming the role and the range.
    static Result<ExportModel> build(const ClusterTemplate &t, const QMap<QString, int> &counts);

    // A stored session as it runs now (its resolved plan, after any scale): each role as its
    // first kernel has it — image (by digest when pulled from a registry), entrypoint, command,
    // bootstrap script, env (image defaults and preset variables included), ports, resources,
    // mounts — and its current count. What the formats cannot say (kernels of a role that differ
    // in env, indices with gaps, the presets' files) is in sourceWarnings().
    static Result<ExportModel> fromPlan(const ClusterPlan &plan);

    const ClusterTemplate &cluster() const { return m_template; }
    // Set by fromPlan: where the export is not the session as it runs (empty for a template).
    const QStringList &sourceWarnings() const { return m_sourceWarnings; }
    // "template 'web-cluster'" or "session 'demo' (template 'web-cluster')", for the header.
    const QString &sourceName() const { return m_sourceName; }
    const QList<ExportedRole> &roles() const { return m_roles; }
    int size() const { return m_size; }

    // `role:count,…` in template order (BACKEND_CLUSTER_REPLICAS).
    QString replicas() const;
    // BACKEND_CLUSTER_<ROLE>_HOSTS: upper-cased, '-' → '_'.
    static QString roleHostsVariable(const QString &role);

    // Where a role's command, entrypoint, bootstrap or env names a kernel by its short hostname
    // (`master1`, `worker3`): "role worker: command names master1". Empty when none does.
    QStringList shortNameReferences() const;

    // Both formats run a bootstrap script with `/bin/sh -e`: a `#!` line naming another
    // interpreter (ClusterDeck would honour it) gets this warning; empty when there is none.
    static QString bootstrapWarning(const ExportedRole &role);

    // The header comment lines every export starts with ("# …").
    static QString commentBlock(const QStringList &lines);

private:
    ClusterTemplate m_template;
    QList<ExportedRole> m_roles;
    int m_size = 0;
    QStringList m_sourceWarnings;
    QString m_sourceName;
};

} // namespace ClusterDeck
