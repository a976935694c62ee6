"""The univ-bench ontology of LUBM (``http://swat.cse.lehigh.edu/onto/univ-bench.owl``,
version of April 1, 2004) as Turtle: its class and property axioms restated, labels and
comments left out. :func:`write_ontology` writes it to a file for ``--infer``."""

from __future__ import annotations

__all__ = ["UNIV_BENCH", "write_ontology"]

UNIV_BENCH = """\
@prefix : <http://swat.cse.lehigh.edu/onto/univ-bench.owl#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

<http://swat.cse.lehigh.edu/onto/univ-bench.owl> a owl:Ontology .

:AdministrativeStaff a owl:Class ; rdfs:subClassOf :Employee .
:Article a owl:Class ; rdfs:subClassOf :Publication .
:AssistantProfessor a owl:Class ; rdfs:subClassOf :Professor .
:AssociateProfessor a owl:Class ; rdfs:subClassOf :Professor .
:Book a owl:Class ; rdfs:subClassOf :Publication .
:Chair a owl:Class ; rdfs:subClassOf :Professor ;
    owl:intersectionOf ( :Person [ a owl:Restriction ; owl:onProperty :headOf ;
                                   owl:someValuesFrom :Department ] ) .
:ClericalStaff a owl:Class ; rdfs:subClassOf :AdministrativeStaff .
:College a owl:Class ; rdfs:subClassOf :Organization .
:ConferencePaper a owl:Class ; rdfs:subClassOf :Article .
:Course a owl:Class ; rdfs:subClassOf :Work .
:Dean a owl:Class ; rdfs:subClassOf :Professor ;
    owl:intersectionOf ( [ a owl:Restriction ; owl:onProperty :headOf ;
                           owl:someValuesFrom :College ] ) .
:Department a owl:Class ; rdfs:subClassOf :Organization .
:Director a owl:Class ;
    owl:intersectionOf ( :Person [ a owl:Restriction ; owl:onProperty :headOf ;
                                   owl:someValuesFrom :Program ] ) .
:Employee a owl:Class ;
    owl:intersectionOf ( :Person [ a owl:Restriction ; owl:onProperty :worksFor ;
                                   owl:someValuesFrom :Organization ] ) .
:Faculty a owl:Class ; rdfs:subClassOf :Employee .
:FullProfessor a owl:Class ; rdfs:subClassOf :Professor .
:GraduateCourse a owl:Class ; rdfs:subClassOf :Course .
:GraduateStudent a owl:Class ; rdfs:subClassOf :Person ,
    [ a owl:Restriction ; owl:onProperty :takesCourse ; owl:someValuesFrom :GraduateCourse ] .
:Institute a owl:Class ; rdfs:subClassOf :Organization .
:JournalArticle a owl:Class ; rdfs:subClassOf :Article .
:Lecturer a owl:Class ; rdfs:subClassOf :Faculty .
:Manual a owl:Class ; rdfs:subClassOf :Publication .
:Organization a owl:Class .
:Person a owl:Class .
:PostDoc a owl:Class ; rdfs:subClassOf :Faculty .
:Professor a owl:Class ; rdfs:subClassOf :Faculty .
:Program a owl:Class ; rdfs:subClassOf :Organization .
:Publication a owl:Class .
:Research a owl:Class ; rdfs:subClassOf :Work .
:ResearchAssistant a owl:Class ; rdfs:subClassOf :Person ,
    [ a owl:Restriction ; owl:onProperty :worksFor ; owl:someValuesFrom :ResearchGroup ] .
:ResearchGroup a owl:Class ; rdfs:subClassOf :Organization .
:Schedule a owl:Class .
:Software a owl:Class ; rdfs:subClassOf :Publication .
:Specification a owl:Class ; rdfs:subClassOf :Publication .
:Student a owl:Class ;
    owl:intersectionOf ( :Person [ a owl:Restriction ; owl:onProperty :takesCourse ;
                                   owl:someValuesFrom :Course ] ) .
:SystemsStaff a owl:Class ; rdfs:subClassOf :AdministrativeStaff .
:TeachingAssistant a owl:Class ;
    owl:intersectionOf ( :Person [ a owl:Restriction ; owl:onProperty :teachingAssistantOf ;
                                   owl:someValuesFrom :Course ] ) .
:TechnicalReport a owl:Class ; rdfs:subClassOf :Article .
:UndergraduateStudent a owl:Class ; rdfs:subClassOf :Student .
:University a owl:Class ; rdfs:subClassOf :Organization .
:UnofficialPublication a owl:Class ; rdfs:subClassOf :Publication .
:VisitingProfessor a owl:Class ; rdfs:subClassOf :Professor .
:Work a owl:Class .

:advisor a owl:ObjectProperty ; rdfs:domain :Person ; rdfs:range :Professor .
:affiliatedOrganizationOf a owl:ObjectProperty ; rdfs:domain :Organization ;
    rdfs:range :Organization .
:affiliateOf a owl:ObjectProperty ; rdfs:domain :Organization ; rdfs:range :Person .
:age a owl:DatatypeProperty ; rdfs:domain :Person .
:degreeFrom a owl:ObjectProperty ; rdfs:domain :Person ; rdfs:range :University ;
    owl:inverseOf :hasAlumnus .
:doctoralDegreeFrom a owl:ObjectProperty ; rdfs:domain :Person ; rdfs:range :University ;
    rdfs:subPropertyOf :degreeFrom .
:emailAddress a owl:DatatypeProperty ; rdfs:domain :Person .
:hasAlumnus a owl:ObjectProperty ; rdfs:domain :University ; rdfs:range :Person ;
    owl:inverseOf :degreeFrom .
:headOf a owl:ObjectProperty ; rdfs:subPropertyOf :worksFor .
:listedCourse a owl:ObjectProperty ; rdfs:domain :Schedule ; rdfs:range :Course .
:mastersDegreeFrom a owl:ObjectProperty ; rdfs:domain :Person ; rdfs:range :University ;
    rdfs:subPropertyOf :degreeFrom .
:member a owl:ObjectProperty ; rdfs:domain :Organization ; rdfs:range :Person .
:memberOf a owl:ObjectProperty ; owl:inverseOf :member .
:name a owl:DatatypeProperty .
:officeNumber a owl:DatatypeProperty .
:orgPublication a owl:ObjectProperty ; rdfs:domain :Organization ; rdfs:range :Publication .
:publicationAuthor a owl:ObjectProperty ; rdfs:domain :Publication ; rdfs:range :Person .
:publicationDate a owl:DatatypeProperty ; rdfs:domain :Publication .
:publicationResearch a owl:ObjectProperty ; rdfs:domain :Publication ; rdfs:range :Research .
:researchInterest a owl:DatatypeProperty .
:researchProject a owl:ObjectProperty ; rdfs:domain :ResearchGroup ; rdfs:range :Research .
:softwareDocumentation a owl:ObjectProperty ; rdfs:domain :Software ;
    rdfs:range :Publication .
:softwareVersion a owl:DatatypeProperty ; rdfs:domain :Software .
:subOrganizationOf a owl:TransitiveProperty ; rdfs:domain :Organization ;
    rdfs:range :Organization .
:takesCourse a owl:ObjectProperty .
:teacherOf a owl:ObjectProperty ; rdfs:domain :Faculty ; rdfs:range :Course .
:teachingAssistantOf a owl:ObjectProperty ; rdfs:domain :TeachingAssistant ;
    rdfs:range :Course .
:telephone a owl:DatatypeProperty ; rdfs:domain :Person .
:tenured a owl:DatatypeProperty ; rdfs:domain :Professor .
:title a owl:DatatypeProperty ; rdfs:domain :Person .
:undergraduateDegreeFrom a owl:ObjectProperty ; rdfs:domain :Person ;
    rdfs:range :University ; rdfs:subPropertyOf :degreeFrom .
:worksFor a owl:ObjectProperty ; rdfs:subPropertyOf :memberOf .
"""


def write_ontology(path) -> None:
    """Write the univ-bench ontology as Turtle to ``path``."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(UNIV_BENCH)
