module github.com/bizassist/bizassist/services/analytics

go 1.26

require github.com/bizassist/bizassist/libs v0.0.0

replace github.com/bizassist/bizassist/libs => ../../libs
