#pragma once

#include "formtable.h"
#include <QMap>

namespace ClusterDeck::Ui {

// Two columns, a key and its value, for the template form's maps (env, labels, host labels). A
// blank row is not an entry yet; values keep their spaces.
class KeyValueTable : public FormTable
{
    Q_OBJECT

public:
    KeyValueTable(const QString &keyHeader, const QString &valueHeader, QWidget *parent = nullptr);

    void setPairs(const QMap<QString, QString> &pairs);
    QMap<QString, QString> pairs() const;
    // An empty row at the end, its key cell open for typing.
    void addEmptyRow();
};

} // namespace ClusterDeck::Ui
