#pragma once

#include "host/hoststatus.h"
#include "template/clustertemplate.h"
#include "template/templatediagnostic.h"

#include <QWidget>

#include <functional>
#include <optional>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTabWidget;
class QTableWidget;
class QTimer;

namespace ClusterDeck::Ui {

class ExportDialog;
class RoleTable;
class FormTable;
class KeyValueTable;
class MountsTable;
class RoleTaskEditor;

// The visual template editor: the template's list on the left; a form (name, description, mode,
// failure policy, success policy with its role, TTL after finishing, startup order, presets, MTU,
// the env and mounts every role gets, host paths) with
// an ordered roles table (reordered by buttons or by dragging rows) and the selected role's task
// editor, and a YAML tab, kept in sync both ways; validation as you type lists problems with line
// and field (and marks the field). A form edit changes only the YAML lines of the fields it
// changed (TemplatePatcher): the admin's comments and layout stay. Unsaved changes are never
// dropped silently.
class TemplateEditor : public QWidget
{
    Q_OBJECT

public:
    enum RoleColumn { RoleName, RoleImage, RoleMin, RoleMax, RoleCount, RoleCpus, RoleColumns };

    explicit TemplateEditor(QWidget *parent = nullptr);

    // Lists the templates of these folders (the samples and the user's own).
    void setDirectories(const QStringList &sampleDirs, const QString &userDir);
    bool openFile(const QString &path);
    QString currentFile() const { return m_file; }
    bool isModified() const { return m_modified; }
    bool save();
    bool saveAs(const QString &path);

    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *descriptionEdit() const { return m_description; }
    QComboBox *successCombo() const { return m_success; }
    QComboBox *successRoleCombo() const { return m_successRole; }
    QLineEdit *ttlEdit() const { return m_ttl; }
    QSpinBox *maxRestartsSpin() const { return m_maxRestarts; }
    QSpinBox *mtuSpin() const { return m_mtu; }
    // env: applies to every role (a role's own env wins).
    QTableWidget *templateEnvTable() const;
    // mounts: applies to every role.
    MountsTable *templateMountsTable() const { return m_mounts; }
    QCheckBox *allowHostPathsBox() const { return m_allowHostPaths; }
    RoleTable *rolesTable() const { return m_roles; }
    RoleTaskEditor *taskEditor() const { return m_task; }
    QPlainTextEdit *yamlEdit() const { return m_yaml; }
    QListWidget *problemsList() const { return m_problems; }
    QTabWidget *tabs() const { return m_tabs; }
    TemplateDiagnostics diagnostics() const { return m_diagnostics; }
    const std::optional<ClusterTemplate> &currentTemplate() const { return m_template; }

    // Asked before unsaved changes would be lost: Save, Discard or Cancel (tests answer here).
    enum class Answer { Save, Discard, Cancel };
    using AskUnsaved = std::function<Answer(const QString &file)>;
    void setAskUnsaved(AskUnsaved ask) { m_askUnsaved = std::move(ask); }
    bool maybeKeepChanges(); // true when it is fine to move on

    // Runs the YAML validation now instead of after the typing pause.
    void validateNow();
    // The Export dialog (Export… button) of what the editor shows, unsaved edits included, not
    // yet shown; nullptr after telling the admin, when the text has problems.
    ExportDialog *exportDialog();

    // The images the hosts have ("repo:tag"), offered by the task editor's image box.
    void setKnownImages(const QStringList &images);
    // The union of the hosts' tagged images, sorted, for setKnownImages().
    static QStringList imagesOf(const QList<HostStatus> &hosts);

Q_SIGNALS:
    void modifiedChanged(bool modified);

private:
    void buildUi();
    void refreshList();
    void formEdited();
    // The selected row of one of the form's tables, as its Remove button does.
    void removeSelectedRow(FormTable *table);
    void setAllowHostPaths(bool allow);
    void yamlEdited();
    void showTemplateInForm(const ClusterTemplate &t);
    ClusterTemplate templateFromForm() const;
    QByteArray yamlFromForm() const;
    // `t` written into the base text (only the fields that differ from the base template change).
    QByteArray yamlFor(const ClusterTemplate &t) const;
    RoleTemplate roleAt(int row) const;
    QString memoryTextAt(int row) const;
    void setRoleRow(int row, const RoleTemplate &role, const QString &memoryText);
    // The role box offers the table's roles (and `selected`, when it names none of them).
    void refreshSuccessRoles(const QString &selected);
    void updateSuccessFields();
    void showSelectedRole();
    void taskEdited();
    void markTaskFields();
    void showDiagnostics();
    void markFields();
    void setModified(bool modified);
    void addRole();
    void removeRole();
    void moveRole(int delta);
    void newTemplate();
    void duplicateTemplate();
    void deleteTemplate();

    QStringList m_sampleDirs;
    QString m_userDir;
    QString m_file;
    std::optional<ClusterTemplate> m_template; // last valid state
    // The text form edits are patched into: the file as opened or the YAML as last typed (when it
    // loaded), and the template it loads as. Reverting a field gives this text back byte for byte.
    QByteArray m_baseYaml;
    std::optional<ClusterTemplate> m_baseTemplate;
    TemplateDiagnostics m_diagnostics;
    bool m_modified = false;
    bool m_syncing = false;
    AskUnsaved m_askUnsaved;

    QListWidget *m_list = nullptr;
    QTabWidget *m_tabs = nullptr;
    QLineEdit *m_name = nullptr;
    QLineEdit *m_description = nullptr;
    QComboBox *m_mode = nullptr;
    QComboBox *m_failure = nullptr;
    QSpinBox *m_maxRestarts = nullptr; // restart-session only
    QSpinBox *m_mtu = nullptr;         // network.mtu; its minimum means unset
    KeyValueTable *m_env = nullptr;
    MountsTable *m_mounts = nullptr;
    QComboBox *m_success = nullptr;
    QComboBox *m_successRole = nullptr;
    QLabel *m_successRoleLabel = nullptr;
    QLineEdit *m_ttl = nullptr;
    QCheckBox *m_allowHostPaths = nullptr;
    QComboBox *m_startup = nullptr;
    QLineEdit *m_presets = nullptr;
    RoleTable *m_roles = nullptr;
    RoleTaskEditor *m_task = nullptr;
    QPlainTextEdit *m_yaml = nullptr;
    QListWidget *m_problems = nullptr;
    QPushButton *m_save = nullptr;
    QPushButton *m_export = nullptr;
    QTimer *m_validateTimer = nullptr;
};

} // namespace ClusterDeck::Ui
