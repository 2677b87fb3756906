package app

// Application is every leads use case, wired by the service package.
type Application struct {
	FindLeads   FindLeads
	QualifyLead QualifyLead
	ScoreBatch  ScoreBatch
	ListSheet   ListSheet
	ExportSheet ExportSheet
	Stats       CatalogStats
	Inbound     RecordInboundLead
}
