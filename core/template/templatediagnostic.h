#pragma once

#include "common/error.h"

#include <QList>
#include <QString>

namespace ClusterDeck {

// One problem found in a template: where (file, 1-based line and column, field path) and what was
// expected. A loader reports all of them, not only the first.
struct TemplateDiagnostic
{
    QString file;
    int line = 0;   // 1-based; 0 when the problem is the file itself (missing, unreadable)
    int column = 0; // 1-based
    QString path;   // "roles[1].max"; empty for the whole document
    QString message;

    // "templates/mpi.yaml:12:5 roles[1].max"
    QString where() const
    {
        QString w = file;
        if (line > 0)
            w += QLatin1Char(':') + QString::number(line) + QLatin1Char(':') +
                 QString::number(column);
        if (!path.isEmpty())
            w += (w.isEmpty() ? QString() : QStringLiteral(" ")) + path;
        return w;
    }
    // "templates/mpi.yaml:12:5 roles[1].max: max (2) must be >= min (3)"
    QString toString() const { return where() + QStringLiteral(": ") + message; }
    Error toError() const { return Error::make(Error::Kind::Invalid, where(), message); }
};

using TemplateDiagnostics = QList<TemplateDiagnostic>;

} // namespace ClusterDeck
