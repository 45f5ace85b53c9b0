#pragma once

#include "common/error.h"
#include "template/clustertemplate.h"

#include <QDialog>
#include <QHash>
#include <QStringList>

class QComboBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;

namespace ClusterDeck::Ui {

// Template ▸ Export…: the template as a Kubernetes JobSet or a Compose file, with a count per
// role (within the role's min..max), previewed as the admin changes them and saved where they
// choose. The same export as `clusterdeckctl export TEMPLATE --format … --count …` (ExportModel
// and the exporters in core/export): pure, so it runs on the UI thread.
class ExportDialog : public QDialog
{
    Q_OBJECT

public:
    enum class Format { JobSet, Compose };

    explicit ExportDialog(const ClusterTemplate &clusterTemplate, QWidget *parent = nullptr);

    void setFormat(Format format);
    Format format() const;
    // Sets a role's spin box (clamped to its range, as the admin could); false: no such role.
    bool setCount(const QString &role, int count);
    // What the preview shows, and what Save writes; empty when the export failed.
    QString yaml() const { return m_yaml; }
    // The export's warnings (also comments at the top of the YAML), or its error.
    QStringList messages() const { return m_messages; }
    bool hasError() const { return m_failed; }
    // Writes yaml() to `path` (atomically); an error names the file.
    Result<void> saveTo(const QString &path) const;
    // The file name Save As offers: "<template>-jobset.yaml" or "<template>-compose.yaml".
    QString suggestedFileName() const;

private:
    void rebuild();
    void saveAs();

    ClusterTemplate m_template;
    QComboBox *m_format = nullptr;
    QHash<QString, QSpinBox *> m_counts; // role → its count
    QPlainTextEdit *m_preview = nullptr;
    QLabel *m_messagesLabel = nullptr;
    QPushButton *m_save = nullptr;
    QString m_yaml;
    QStringList m_messages;
    bool m_failed = false;
};

} // namespace ClusterDeck::Ui
